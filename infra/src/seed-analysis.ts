import { reportFields, statTaskFields } from '@iot/contracts';
import { handleCommand, newAggregateId, type CommandContext } from '@iot/command/handler.ts';
import { reportDecider, reportStream } from '@iot/command/report/decide.ts';
import { statTaskDecider, statTaskStream } from '@iot/command/stat/decide.ts';
import type { AppContext } from './http/context.ts';

/**
 * The demo tenant's analysis (issue 20): a running statistic task over the sensors' temperature and a saved
 * report of the first four sensors, so that a newcomer's statistic-task and report screens show something
 * the simulator feeds. Idempotent: every create carries a fixed idempotency key.
 */
export async function seedDemoAnalysis(context: AppContext, tenantId: string): Promise<void> {
  const seed: CommandContext = { tenantId, actor: { kind: 'system', id: 'seed' } };
  const idOf = (key: string) => newAggregateId({ tenantId, idempotencyKey: key });
  const sensorProduct = idOf('demo-product:sensor');

  const taskId = idOf('demo-stat-task:temperature');
  const task = statTaskFields.parse({
    name: '传感器小时平均温度',
    dataType: 'deviceData',
    productId: sensorProduct,
    attribute: 'temperature',
    statType: 'avg',
    cycle: '1h',
    dimension: 'device',
    remark: '演示：每小时每台传感器的平均温度',
  });
  const stream = statTaskStream(tenantId, taskId);
  await handleCommand(
    context.store,
    statTaskDecider,
    stream,
    { type: 'CreateStatTask', taskId, fields: task, enabled: false },
    {
      ...seed,
      idempotencyKey: 'demo-stat-task:temperature',
    },
  );
  await handleCommand(
    context.store,
    statTaskDecider,
    stream,
    { type: 'SetStatTaskStatus', taskId, status: 'enabled' },
    {
      ...seed,
      idempotencyKey: 'demo-stat-task:temperature:enable',
    },
  );

  const reportId = idOf('demo-report:climate');
  const report = reportFields.parse({
    name: '传感器温湿度日报',
    deviceIds: [1, 2, 3, 4].map((i) => idOf(`demo-device:DEMO-TH-${String(i).padStart(3, '0')}`)),
    variables: ['temperature', 'humidity'],
    fn: 'avg',
    cycle: '1h',
    remark: '演示：四台传感器每小时的平均温湿度',
  });
  await handleCommand(
    context.store,
    reportDecider,
    reportStream(tenantId, reportId),
    { type: 'Create', id: reportId, fields: report },
    {
      ...seed,
      idempotencyKey: 'demo-report:climate',
    },
  );
}
