import { productCodeScope, type NodeType, type ProductFields, type ThingFunctionIn } from '@iot/contracts';
import {
  ALARM_CATEGORY_DICT,
  alarmRuleFields,
  contactFields,
  notifyConfigFields,
  notifyTemplateCodeScope,
  notifyTemplateFields,
  thingFunction,
} from '@iot/contracts';
import { alarmRuleDecider, alarmRuleStream } from '@iot/command/alarm/rule.ts';
import { dictDecider, dictStream } from '@iot/command/dict/decide.ts';
import { dictCodeClaim } from '@iot/command/dict/codes.ts';
import {
  contactDecider,
  contactStream,
  notifyConfigDecider,
  notifyConfigStream,
  notifyTemplateDecider,
  notifyTemplateStream,
} from '@iot/command/notify/decide.ts';
import { createDevice } from '@iot/command/device/create.ts';
import { hashDeviceSecret } from '@iot/command/device/secrets.ts';
import { demoDeviceSecret } from './simulator.ts';
import { handleCommand, newAggregateId, type CommandContext } from '@iot/command/handler.ts';
import { productDecider, productStream } from '@iot/command/product/decide.ts';
import { claimExisting } from '@iot/command/shared/claims.ts';
import { templateDecider, templateStream } from '@iot/command/template/decide.ts';
import type { AppContext } from '@iot/infra/http/context.ts';

const property = (
  identifier: string,
  name: string,
  type: 'float' | 'int' | 'double' | 'long',
  min: number,
  max: number,
  unit: string,
): ThingFunctionIn => ({
  type: 'property',
  identifier,
  name,
  dataType: { type, min, max, unit },
  access: 'r',
});

/** The demo fleet's products: a direct sensor, an edge gateway, and the meters behind it. */
const products: Array<{ key: string; fields: ProductFields; functions: ThingFunctionIn[] }> = [
  {
    key: 'sensor',
    fields: {
      name: '温湿度传感器',
      code: 'TH-SENSOR',
      type: 'direct',
      category: 'sensor',
      version: '1.2.0',
      company: '演示科技',
      model: 'TH-200',
      manufacturer: '演示科技',
      protocol: 'mqtt',
      description: '直连设备：温度、湿度、电量，过热事件',
    },
    functions: [
      property('temperature', '温度', 'float', -40, 125, '°C'),
      property('humidity', '湿度', 'float', 0, 100, '%'),
      property('battery', '电量', 'int', 0, 100, '%'),
      {
        type: 'event',
        identifier: 'overheat',
        name: '过热告警',
        level: 'alert',
        outputs: [{ identifier: 'temperature', name: '温度', dataType: { type: 'float' } }],
      },
      {
        type: 'service',
        identifier: 'setInterval',
        name: '设置上报间隔',
        invoke: 'async',
        inputs: [{ identifier: 'seconds', name: '秒', dataType: { type: 'int', min: 1, max: 3600 } }],
      },
    ],
  },
  {
    key: 'gateway',
    fields: {
      name: '边缘网关',
      code: 'GW-EDGE',
      type: 'gateway',
      category: 'gateway',
      version: '2.0.1',
      company: '演示科技',
      model: 'EG-8',
      manufacturer: '演示科技',
      protocol: 'mqtt',
      description: '网关设备：下挂 Modbus 电表',
    },
    functions: [property('cpu', 'CPU 使用率', 'float', 0, 100, '%'), property('uptime', '运行时长', 'long', 0, 1e12, 's')],
  },
  {
    key: 'meter',
    fields: {
      name: '智能电表',
      code: 'POWER-METER',
      type: 'subDevice',
      category: 'meter',
      version: '1.0.0',
      company: '演示科技',
      model: 'PM-3',
      manufacturer: '演示科技',
      protocol: 'modbus-rtu',
      description: '网关子设备：电压、电流、功率、电能',
    },
    functions: [
      property('voltage', '电压', 'float', 0, 450, 'V'),
      property('current', '电流', 'float', 0, 100, 'A'),
      property('power', '功率', 'float', 0, 50, 'kW'),
      property('energy', '电能', 'double', 0, 1e9, 'kWh'),
    ],
  },
];

/**
 * The demo tenant's fleet (issue 10): three products with published thing models, 20 devices on a map
 * around Shanghai (12 sensors, 2 gateways with 3 meters each), and a Modbus template.
 * Idempotent: every create carries a fixed idempotency key.
 */
export async function seedDemoFleet(context: AppContext, tenantId: string, groupId: (key: string) => string): Promise<void> {
  const seed: CommandContext = { tenantId, actor: { kind: 'system', id: 'seed' } };
  const idOf = (key: string) => newAggregateId({ tenantId, idempotencyKey: key });
  const productIds: Record<string, string> = {};
  for (const p of products) {
    const id = idOf(`demo-product:${p.key}`);
    productIds[p.key] = id;
    await claimExisting(context.db, [{ scope: productCodeScope(tenantId), key: p.fields.code.toLowerCase(), owner: id }]);
    const functions = p.functions.map((f) => thingFunction.parse(f));
    const stream = productStream(tenantId, id);
    await handleCommand(
      context.store,
      productDecider,
      stream,
      { type: 'CreateProduct', productId: id, key: `demo-${p.key}`, fields: p.fields, functions, copiedFrom: null },
      {
        ...seed,
        idempotencyKey: `demo-product:${p.key}`,
      },
    );
    await handleCommand(
      context.store,
      productDecider,
      stream,
      { type: 'PublishProduct', productId: id },
      { ...seed, idempotencyKey: `demo-publish:${p.key}` },
    );
  }

  // Deterministic spots around the People's Square, spread over the city.
  const spot = (i: number) => ({
    lng: 121.4737 + Math.cos(i * 2.4) * 0.02 * (1 + (i % 5)),
    lat: 31.2304 + Math.sin(i * 2.4) * 0.015 * (1 + (i % 5)),
  });
  const districts = ['黄浦区', '徐汇区', '浦东新区', '静安区', '长宁区', '普陀区', '虹口区', '杨浦区', '闵行区', '宝山区'];
  const devices: Array<{ sn: string; name: string; product: string; nodeType: NodeType; group: string; gateway: string | null }> = [];
  for (let i = 1; i <= 12; i++)
    devices.push({
      sn: `DEMO-TH-${String(i).padStart(3, '0')}`,
      name: `温湿度传感器 ${i}号`,
      product: 'sensor',
      nodeType: 'direct',
      group: i % 3 === 0 ? 'east-office' : 'east-plant',
      gateway: null,
    });
  for (let g = 1; g <= 2; g++) {
    devices.push({
      sn: `DEMO-GW-${g}`,
      name: `边缘网关 ${g}号`,
      product: 'gateway',
      nodeType: 'gateway',
      group: 'east-plant',
      gateway: null,
    });
    for (let m = 1; m <= 3; m++)
      devices.push({
        sn: `DEMO-PM-${g}${m}`,
        name: `电表 ${g}-${m}`,
        product: 'meter',
        nodeType: 'subDevice',
        group: 'east-plant',
        gateway: `DEMO-GW-${g}`,
      });
  }

  const deviceIds = new Map<string, string>();
  for (const [i, d] of devices.entries()) {
    const id = idOf(`demo-device:${d.sn}`);
    deviceIds.set(d.sn, id);
    await createDevice(
      context,
      { ...seed, idempotencyKey: `demo-device:${d.sn}` },
      {
        deviceId: id,
        sn: d.sn,
        name: d.name,
        productId: productIds[d.product]!,
        modelVersion: 1,
        nodeType: d.nodeType,
        groupId: groupId(d.group),
        gatewayId: d.gateway ? deviceIds.get(d.gateway)! : null,
        location: { ...spot(i), address: `上海市${districts[i % districts.length]}` },
        version: '1.0.0',
        tags: [d.product === 'sensor' ? '环境' : '配电'],
        remark: null,
        // Derived from the SN so that the demo simulator can log in (demo data only; README "Demo fleet").
        secretHash: hashDeviceSecret(demoDeviceSecret(d.sn)),
      },
    );
  }

  const templateId = idOf('demo-template:meter');
  const tstream = templateStream(tenantId, templateId);
  await handleCommand(
    context.store,
    templateDecider,
    tstream,
    {
      type: 'CreateTemplate',
      templateId,
      fields: {
        name: '电表 Modbus 采集',
        productId: productIds.meter!,
        protocol: 'modbus-rtu',
        acquisitionPeriod: 10,
        frequency: 1,
        storageMode: 'both',
        upload: 'periodic',
        retentionDays: 365,
        remark: '保持寄存器，浮点，CDAB',
      },
    },
    { ...seed, idempotencyKey: 'demo-template:meter' },
  );
  const meterProperties = products[2]!.functions.map((f) => f.identifier);
  for (const [n, identifier] of meterProperties.entries()) {
    await handleCommand(
      context.store,
      templateDecider,
      tstream,
      {
        type: 'DefineVariable',
        templateId,
        properties: meterProperties,
        variable: {
          name: (products[2]!.functions[n] as { name: string }).name,
          type: 'analog',
          attribute: 'CLIENT',
          access: 'r',
          identifier,
          unit: null,
          base: 0,
          mapping: null,
          compute: false,
          group: '电参量',
          modbus: { slaveAddress: 1, functionCode: 3, registerAddress: 100 + n * 2, dataFormat: 'float32', byteOrder: 'CDAB', scale: 1 },
          plc: null,
        },
      },
      { ...seed, idempotencyKey: `demo-template-variable:${identifier}` },
    );
  }
}

/** The demo fleet as the simulator drives it: sensors and gateways with their meters. */
export const demoFleetDevices = () => {
  const gateways = [1, 2].map((g) => ({
    sn: `DEMO-GW-${g}`,
    secret: demoDeviceSecret(`DEMO-GW-${g}`),
    subDevices: [1, 2, 3].map((m) => `DEMO-PM-${g}${m}`),
  }));
  const sensors = Array.from({ length: 12 }, (_, i) => `DEMO-TH-${String(i + 1).padStart(3, '0')}`).map((sn) => ({
    sn,
    secret: demoDeviceSecret(sn),
  }));
  return [...sensors, ...gateways];
};

/**
 * The demo tenant's fault alarms (issue 12): rules the simulator's values cross now and then (a warm
 * afternoon, a voltage spike), a duty contact, a template and a configuration that files every alarm in
 * the in-app inbox and mails the contact (kept in the local outbox when SMTP_URL is not set).
 */
export async function seedDemoAlarms(context: AppContext, tenantId: string): Promise<void> {
  const seed: CommandContext = { tenantId, actor: { kind: 'system', id: 'seed' } };
  const idOf = (key: string) => newAggregateId({ tenantId, idempotencyKey: key });
  const productId = (key: string) => idOf(`demo-product:${key}`);
  const rules = [
    {
      key: 'hot',
      name: '温度偏高',
      product: 'sensor',
      variable: 'temperature',
      mode: 'crossUpper',
      operator: 'gt',
      threshold: 26,
      level: 3,
      deadband: 0.5,
      durationSamples: 2,
      cause: '环境温度超过 26 °C',
      suggestion: '检查空调与通风',
    },
    {
      key: 'humidity',
      name: '湿度异常',
      product: 'sensor',
      variable: 'humidity',
      mode: 'crossBoth',
      operator: 'gt',
      threshold: 68,
      lowOperator: 'lt',
      lowThreshold: 42,
      level: 2,
      deadband: 1,
      cause: '湿度超出 42-68 %',
      suggestion: '检查除湿设备',
    },
    {
      key: 'voltage',
      name: '电压越限',
      product: 'meter',
      variable: 'voltage',
      mode: 'crossUpper',
      operator: 'gt',
      threshold: 221.5,
      level: 4,
      deadband: 0.3,
      cause: '电压高于 221.5 V',
      suggestion: '检查供电与变压器分接头',
    },
  ] as const;
  for (const r of rules) {
    const id = idOf(`demo-alarm-rule:${r.key}`);
    const { key: _key, product, ...rule } = r;
    const fields = alarmRuleFields.parse({ ...rule, productId: productId(product), type: 'cloud' });
    await handleCommand(
      context.store,
      alarmRuleDecider,
      alarmRuleStream(tenantId, id),
      { type: 'Create', id, fields },
      { ...seed, idempotencyKey: `demo-alarm-rule:${r.key}` },
    );
  }
  // Alarm categories are a dictionary the tenant edits (system → dictionaries); the rule editor picks from it.
  const dictId = idOf('demo-dict:alarm-category');
  await claimExisting(context.db, [dictCodeClaim(tenantId, ALARM_CATEGORY_DICT, dictId)]);
  await handleCommand(
    context.store,
    dictDecider,
    dictStream(tenantId, dictId),
    {
      type: 'CreateDictType',
      typeId: dictId,
      code: ALARM_CATEGORY_DICT,
      name: '告警类别',
      status: 'enabled',
      remark: null,
      codeTaken: false,
    },
    { ...seed, idempotencyKey: 'demo-dict:alarm-category' },
  );
  for (const [sort, [value, label]] of [
    ['environment', '环境'],
    ['electrical', '电气'],
    ['equipment', '设备故障'],
    ['communication', '通讯'],
  ].entries())
    await handleCommand(
      context.store,
      dictDecider,
      dictStream(tenantId, dictId),
      {
        type: 'AddDictItem',
        typeId: dictId,
        itemId: idOf(`demo-dict-item:${value}`),
        label: label!,
        value: value!,
        sort,
        status: 'enabled',
        remark: null,
      },
      { ...seed, idempotencyKey: `demo-dict-item:${value}` },
    );
  const contactId = idOf('demo-contact:duty');
  await handleCommand(
    context.store,
    contactDecider,
    contactStream(tenantId, contactId),
    {
      type: 'Create',
      id: contactId,
      fields: contactFields.parse({
        name: '值班工程师',
        phone: '13800000000',
        email: 'duty@example.com',
        emailActivated: true,
        wechat: 'duty_engineer',
      }),
    },
    { ...seed, idempotencyKey: 'demo-contact:duty' },
  );
  const templateId = idOf('demo-notify-template:alarm');
  await claimExisting(context.db, [{ scope: notifyTemplateCodeScope(tenantId), key: 'ALARM', owner: templateId }]);
  await handleCommand(
    context.store,
    notifyTemplateDecider,
    notifyTemplateStream(tenantId, templateId),
    {
      type: 'Create',
      id: templateId,
      fields: notifyTemplateFields.parse({
        code: 'ALARM',
        name: '告警通知',
        type: 'email',
        subject: '【{{level}}】{{device}} {{rule}}',
        content: '{{time}} {{device}}（{{sn}}）{{variable}} = {{value}}：{{cause}}。建议：{{suggestion}}',
      }),
    },
    { ...seed, idempotencyKey: 'demo-notify-template:alarm' },
  );
  const configId = idOf('demo-notify-config:duty');
  await handleCommand(
    context.store,
    notifyConfigDecider,
    notifyConfigStream(tenantId, configId),
    {
      type: 'Create',
      id: configId,
      fields: notifyConfigFields.parse({
        name: '值班通知',
        source: 'alarm',
        type: 'email',
        templateId,
        sendWays: ['inApp', 'email'],
        contactIds: [contactId],
        minLevel: 2,
      }),
    },
    { ...seed, idempotencyKey: 'demo-notify-config:duty' },
  );
}
