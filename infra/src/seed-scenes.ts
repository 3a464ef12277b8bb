import { ruleChainDefinition, sceneFields } from '@iot/contracts';
import { handleCommand, newAggregateId, type CommandContext } from '@iot/command/handler.ts';
import { ruleChainDecider } from '@iot/command/rule/decide.ts';
import { ruleChainStream } from '@iot/command/rule/chain.ts';
import { sceneDecider, sceneStream } from '@iot/command/scene/decide.ts';
import type { AppContext } from '@iot/infra/http/context.ts';

/**
 * The demo tenant's scene linkage and rule chains (issue 19), through the same commands as the screens: a timing
 * scene that reminds the duty contact every morning (running), a scene on a sensor's temperature (stopped, for the
 * operator to switch on), and a rule chain beside the root one that a rule-chain node can call.
 * Idempotent: every command carries a fixed idempotency key. After seedDemoFleet and seedDemoAlarms (their ids).
 */
export async function seedDemoScenes(context: AppContext, tenantId: string): Promise<void> {
  const seed: CommandContext = { tenantId, actor: { kind: 'system', id: 'seed' } };
  const idOf = (key: string) => newAggregateId({ tenantId, idempotencyKey: key });
  const configId = idOf('demo-notify-config:duty');
  const sensorId = idOf('demo-device:DEMO-TH-001');
  const scenes = [
    {
      key: 'morning-check',
      enabled: true,
      fields: sceneFields.parse({
        name: '每日巡检提醒',
        description: '工作日 08:30 通知值班工程师巡检',
        triggers: [{ type: 'timing', cron: '30 8 * * 1-5', timeZone: 'Asia/Shanghai' }],
        actions: [{ type: 'notify', configId }],
      }),
    },
    {
      key: 'hot-sensor',
      enabled: false,
      fields: sceneFields.parse({
        name: '机房高温联动',
        description: '温湿度传感器 1 温度高于 28 °C 且在白天时通知值班工程师',
        triggers: [
          { type: 'device', deviceId: sensorId, match: { kind: 'property', identifier: 'temperature', operator: 'gt', value: 28 } },
        ],
        conditions: [{ type: 'time', from: '08:00', to: '20:00', weekdays: [], timeZone: 'Asia/Shanghai' }],
        actions: [{ type: 'notify', configId, deviceId: sensorId }],
      }),
    },
  ];
  for (const s of scenes) {
    const sceneId = idOf(`demo-scene:${s.key}`);
    await handleCommand(
      context.store,
      sceneDecider,
      sceneStream(tenantId, sceneId),
      { type: 'CreateScene', sceneId, fields: s.fields, enabled: s.enabled },
      { ...seed, idempotencyKey: `demo-scene:${s.key}` },
    );
  }
  const chainId = idOf('demo-rule-chain:temperature');
  const chain = ruleChainDefinition.parse({
    name: '温度处理',
    firstNodeId: 'hot',
    nodes: [
      { id: 'hot', name: '温度偏高', kind: 'filter', config: { expression: 'msg.temperature > 28.0' } },
      {
        id: 'fahrenheit',
        name: '换算华氏度',
        kind: 'transform',
        config: { set: [{ field: 'temperatureF', expression: 'msg.temperature * 1.8 + 32.0' }] },
      },
      { id: 'device', name: '设备信息', kind: 'enrich', config: { device: true, product: true } },
      {
        id: 'alarm',
        name: '高温告警',
        kind: 'createAlarm',
        config: { alarmName: '规则链高温', level: 3, variable: 'temperature', cause: '温度高于 28 °C' },
      },
    ],
    links: [
      { from: 'hot', to: 'fahrenheit', label: 'True' },
      { from: 'fahrenheit', to: 'device', label: 'Success' },
      { from: 'device', to: 'alarm', label: 'Success' },
    ],
  });
  await handleCommand(
    context.store,
    ruleChainDecider,
    ruleChainStream(tenantId, chainId),
    { type: 'CreateChain', chainId, root: false, chain },
    { ...seed, idempotencyKey: 'demo-rule-chain:temperature' },
  );
}
