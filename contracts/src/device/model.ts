import { z } from 'zod';
import { entityId, optionalText } from '../identity/common.ts';
import { identifier } from './thing-model.ts';

const name = z.string().trim().min(1).max(64);
const text = (max: number) => optionalText(max);

// ---------------------------------------------------------------- products (spec §3 Product)
/** How a product's devices reach the platform: on their own, as a gateway, or behind one. */
export const nodeTypes = ['direct', 'gateway', 'subDevice'] as const;
export type NodeType = (typeof nodeTypes)[number];
export const protocols = ['mqtt', 'http', 'modbus-rtu', 'modbus-tcp', 's7', 'opcua', 'custom'] as const;
export const productStatuses = ['unpublished', 'published'] as const;
export type ProductStatus = (typeof productStatuses)[number];

/** The fields of a product an operator edits (its key, status and thing model have their own commands). */
export const productFields = z
  .object({
    name,
    code: z
      .string()
      .trim()
      .min(1)
      .max(64)
      .regex(/^[A-Za-z0-9_.-]+$/, { message: 'code: letters, digits, _ . -' }),
    type: z.enum(nodeTypes),
    category: text(64),
    version: text(32),
    company: text(128),
    model: text(64),
    manufacturer: text(128),
    protocol: z.enum(protocols).default('mqtt'),
    description: text(512),
  })
  .strict();
export type ProductFields = z.infer<typeof productFields>;
export const productCreateBody = productFields;
export const productUpdateBody = productFields.extend({ id: entityId }).strict();

export const productRow = z.object({
  id: z.string(),
  key: z.string(),
  name: z.string(),
  code: z.string(),
  type: z.enum(nodeTypes),
  category: z.string().nullable(),
  version: z.string().nullable(),
  company: z.string().nullable(),
  model: z.string().nullable(),
  manufacturer: z.string().nullable(),
  protocol: z.string(),
  description: z.string().nullable(),
  status: z.enum(productStatuses),
  /** The newest published version of the thing model (0: never published). */
  modelVersion: z.number().int(),
  /** Whether the draft differs from the newest published version. */
  draftChanged: z.boolean(),
  functionCount: z.number().int(),
  deviceCount: z.number().int(),
  upgradeProgress: z.number().nullable(),
  createBy: z.string(),
  updateBy: z.string(),
  createTime: z.string(),
  updateTime: z.string(),
});
export type ProductRow = z.infer<typeof productRow>;
export const productSortable = ['createTime', 'name', 'code'] as const;
export const productListQuery = {
  name: z.string().trim().max(64).optional(),
  type: z.enum(nodeTypes).optional(),
  status: z.enum(productStatuses).optional(),
};

// ---------------------------------------------------------------- devices (spec §3 Device and Gateway)
/** A serial number: printable, no spaces, unique in the platform (a claim). */
export const serialNumber = z
  .string()
  .trim()
  .min(1)
  .max(64)
  .regex(/^[A-Za-z0-9_.:-]+$/, { message: 'SN: letters, digits and _ . : -' });
export const longitude = z.number().finite().min(-180).max(180);
export const latitude = z.number().finite().min(-90).max(90);
export const location = z
  .object({ lng: longitude.nullish(), lat: latitude.nullish(), address: text(256) })
  .strict()
  .refine((l) => (l.lng == null) === (l.lat == null), { message: 'longitude and latitude go together', path: ['lat'] });
export type DeviceLocation = z.infer<typeof location>;
export const tag = z.string().trim().min(1).max(32);
export const deviceStatuses = ['online', 'offline'] as const;
export type DeviceStatus = (typeof deviceStatuses)[number];

/** The fields of a device an operator edits; product, SN and secret have their own rules. */
export const deviceFields = z
  .object({
    name,
    groupId: entityId.nullish().transform((v) => v ?? null),
    location: location.default({ lng: null, lat: null, address: null }),
    version: text(32),
    tags: z.array(tag).max(20).default([]),
    remark: text(256),
  })
  .strict();
export type DeviceFields = z.infer<typeof deviceFields>;
export const deviceCreateBody = deviceFields.extend({ sn: serialNumber, productId: entityId, gatewayId: entityId.nullish() }).strict();
export type DeviceCreateBody = z.infer<typeof deviceCreateBody>;
/** A partial edit: a field left out stays as it is; null clears one that may be empty (the group: out of any). */
export const deviceUpdateBody = z
  .object({
    id: entityId,
    name: name.optional(),
    groupId: entityId.nullable().optional(),
    location: location.optional(),
    version: text(32).optional(),
    tags: z.array(tag).max(20).optional(),
    remark: text(256).optional(),
  })
  .strict();

export const deviceRow = z.object({
  id: z.string(),
  sn: z.string(),
  name: z.string(),
  productId: z.string(),
  productName: z.string().nullable(),
  /** The thing-model version the device reports against. */
  modelVersion: z.number().int(),
  nodeType: z.enum(nodeTypes),
  groupId: z.string().nullable(),
  groupName: z.string().nullable(),
  gatewayId: z.string().nullable(),
  gatewayName: z.string().nullable(),
  status: z.enum(deviceStatuses),
  enabled: z.boolean(),
  lng: z.number().nullable(),
  lat: z.number().nullable(),
  address: z.string().nullable(),
  version: z.string().nullable(),
  tags: z.array(z.string()),
  remark: z.string().nullable(),
  templateId: z.string().nullable(),
  subDeviceCount: z.number().int(),
  lastReportAt: z.string().nullable(),
  createBy: z.string(),
  createTime: z.string(),
  updateTime: z.string(),
});
export type DeviceRow = z.infer<typeof deviceRow>;
export const deviceSortable = ['createTime', 'name', 'sn', 'status', 'lastReportAt'] as const;
export const deviceListFilters = {
  name: z.string().trim().max(64).optional(),
  sn: z.string().trim().max(64).optional(),
  productId: entityId.optional(),
  groupId: entityId.optional(),
  gatewayId: entityId.optional(),
  status: z.enum(deviceStatuses).optional(),
  enabled: z.enum(['true', 'false']).optional(),
  nodeType: z.enum(nodeTypes).optional(),
  tag: tag.optional(),
};

/** A device's secret, shown once: the device logs in with its SN and this. */
export const deviceSecretResult = z.object({ id: z.string(), sn: z.string(), secret: z.string() });

// ---------------------------------------------------------------- templates and variables (spec §3, §9)
export const templateProtocols = ['modbus-rtu', 'modbus-tcp', 's7', 'mqtt', 'opcua', 'custom'] as const;
/** Spec §9 report-and-save modes and strategies. */
export const storageModes = ['none', 'reportOnly', 'saveOnly', 'both'] as const;
export const uploadStrategies = ['change', 'periodic'] as const;

export const templateFields = z
  .object({
    name,
    productId: entityId,
    protocol: z.enum(templateProtocols),
    /** Seconds between acquisitions. */
    acquisitionPeriod: z.number().int().min(1).max(86400),
    /** Samples per acquisition period. */
    frequency: z.number().int().min(1).max(1000).default(1),
    storageMode: z.enum(storageModes).default('both'),
    upload: z.enum(uploadStrategies).default('periodic'),
    /** Days a value is kept in the time-series store. */
    retentionDays: z.number().int().min(1).max(3650).default(365),
    remark: text(256),
  })
  .strict();
export type TemplateFields = z.infer<typeof templateFields>;
export const templateCreateBody = templateFields;
export const templateUpdateBody = templateFields.extend({ id: entityId }).strict();

export const variableAttributes = ['CLIENT', 'SERVER', 'CLIENT_PARAM'] as const;
export const modbusFunctionCodes = [1, 2, 3, 4, 5, 6, 15, 16] as const;
export const modbusFormats = ['int16', 'uint16', 'int32', 'uint32', 'float32'] as const;
export const byteOrders = ['ABCD', 'DCBA', 'BADC', 'CDAB'] as const;
export const plcAreas = ['I', 'Q', 'M', 'DB'] as const;
/** Spec §9 control codes of a PLC variable. */
export const controlCodes = ['read', 'write', 'set', 'reset', 'pulse'] as const;

export const modbusAddress = z
  .object({
    slaveAddress: z.number().int().min(1).max(247),
    functionCode: z.literal(modbusFunctionCodes),
    registerAddress: z.number().int().min(0).max(65535),
    dataFormat: z.enum(modbusFormats),
    byteOrder: z.enum(byteOrders).default('ABCD'),
    scale: z.number().finite().default(1),
  })
  .strict();
export const plcAddress = z
  .object({
    area: z.enum(plcAreas),
    dbNumber: z.number().int().min(1).max(65535).nullish(),
    offset: z.number().int().min(0).max(65535),
    bit: z.number().int().min(0).max(7).nullish(),
    controlCode: z.enum(controlCodes).default('read'),
  })
  .strict()
  .refine((p) => (p.area === 'DB') === (p.dbNumber != null), {
    message: 'a DB area needs its DB number (and only it)',
    path: ['dbNumber'],
  });

export const variableFields = z
  .object({
    name,
    type: z.enum(['analog', 'digital', 'text']).default('analog'),
    attribute: z.enum(variableAttributes),
    access: z.enum(['r', 'rw']).default('r'),
    /** A property identifier of the product's thing model. */
    identifier,
    unit: text(16),
    base: z.number().finite().default(0),
    mapping: text(256),
    compute: z.boolean().default(false),
    group: text(64),
    modbus: modbusAddress.nullish().transform((v) => v ?? null),
    plc: plcAddress.nullish().transform((v) => v ?? null),
  })
  .strict();
export type VariableFields = z.infer<typeof variableFields>;
export const variableBody = variableFields.extend({ templateId: entityId }).strict();
export const variableRemoveBody = z.object({ templateId: entityId, identifier }).strict();

export const templateRow = z.object({
  id: z.string(),
  name: z.string(),
  productId: z.string(),
  productName: z.string().nullable(),
  protocol: z.string(),
  acquisitionPeriod: z.number().int(),
  frequency: z.number().int(),
  storageMode: z.string(),
  upload: z.string(),
  retentionDays: z.number().int(),
  remark: z.string().nullable(),
  variables: z.array(z.record(z.string(), z.unknown())),
  deviceCount: z.number().int(),
  createBy: z.string(),
  createTime: z.string(),
});
export const templateSortable = ['createTime', 'name'] as const;

// ---------------------------------------------------------------- MQTT configs of a gateway (spec §3 MQTT config)
const ipv4 = z
  .string()
  .trim()
  .regex(/^((25[0-5]|2[0-4]\d|1?\d?\d)\.){3}(25[0-5]|2[0-4]\d|1?\d?\d)$/, { message: 'IP must be IPv4 form' });
const topic = z
  .string()
  .trim()
  .min(1)
  .max(256)
  .regex(/^[^\0#+]*(#|\+)?[^\0]*$/);
export const mqttConfigFields = z
  .object({
    gatewayId: entityId,
    name,
    serviceName: name,
    protocol: z.enum(['mqtt', 'mqtts', 'ws', 'wss']).default('mqtt'),
    ip: ipv4,
    port: z.number().int().min(1).max(65535),
    clientId: z.string().trim().min(1).max(128),
    username: text(64),
    password: text(128),
    heartbeat: z.number().int().min(1).max(3600).default(60),
    reportInterval: z.number().int().min(1).max(86400).default(60),
    qos: z.union([z.literal(0), z.literal(1), z.literal(2)]).default(1),
    reconnectSeconds: z.number().int().min(1).max(3600).default(5),
    uplinkTopic: topic,
    downlinkTopic: topic,
    uploadPlatform: text(64),
    controlCommand: text(256),
    packageCount: z.number().int().min(1).max(10000).default(100),
    packageTimeMs: z.number().int().min(10).max(600000).default(1000),
    dataEntry: text(64),
    dataExit: text(64),
    reportSaveMode: z.enum(storageModes).default('both'),
    strategy: z.enum(uploadStrategies).default('periodic'),
    cycleSeconds: z.number().int().min(1).max(86400).default(60),
    maxRecords: z.number().int().min(1).max(1000000).default(10000),
  })
  .strict();
export type MqttConfigFields = z.infer<typeof mqttConfigFields>;
export const mqttConfigUpdateBody = mqttConfigFields.extend({ id: entityId }).strict();
/** A config as listed: plain values (the input schema's transforms cannot serialise an answer), never the password. */
const nullableText = z.string().nullable();
export const mqttConfigRow = z.object({
  id: z.string(),
  gatewayId: z.string(),
  gatewayName: z.string().nullable(),
  name: z.string(),
  serviceName: z.string(),
  protocol: z.string(),
  ip: z.string(),
  port: z.number().int(),
  clientId: z.string(),
  username: nullableText,
  heartbeat: z.number().int(),
  reportInterval: z.number().int(),
  qos: z.number().int(),
  reconnectSeconds: z.number().int(),
  uplinkTopic: z.string(),
  downlinkTopic: z.string(),
  uploadPlatform: nullableText,
  controlCommand: nullableText,
  packageCount: z.number().int(),
  packageTimeMs: z.number().int(),
  dataEntry: nullableText,
  dataExit: nullableText,
  reportSaveMode: z.string(),
  strategy: z.string(),
  cycleSeconds: z.number().int(),
  maxRecords: z.number().int(),
  hasPassword: z.boolean(),
  createTime: z.string(),
});
export const mqttConfigSortable = ['createTime', 'name'] as const;

// ---------------------------------------------------------------- bulk import and bulk actions
export const IMPORT_MAX_BYTES = 50 * 1024 * 1024;
/** Columns of the import file, in the template's order; `sn`, `name` and `product` are required. */
export const importColumns = ['sn', 'name', 'product', 'group', 'gateway', 'lng', 'lat', 'address', 'version', 'tags', 'remark'] as const;
export const importRequiredColumns = ['sn', 'name', 'product'] as const;
export const importQuery = z
  .object({
    /** Chosen by the client so that it can listen to the job's progress before the upload starts. */
    jobId: z
      .string()
      .trim()
      .regex(/^[A-Za-z0-9_-]{8,64}$/),
    filename: z.string().trim().min(1).max(255),
  })
  .strict();
export const importResult = z.object({
  jobId: z.string(),
  total: z.number().int(),
  created: z.number().int(),
  unchanged: z.number().int(),
  failed: z.number().int(),
});
export const importProgress = z.object({
  jobId: z.string(),
  rows: z.number().int(),
  created: z.number().int(),
  failed: z.number().int(),
  bytes: z.number().int(),
  totalBytes: z.number().int().nullable(),
  done: z.boolean(),
});
export type ImportProgress = z.infer<typeof importProgress>;
export const importFault = z.object({ row: z.number().int(), sn: z.string().nullable(), field: z.string(), reason: z.string() });
export type ImportFault = z.infer<typeof importFault>;

export const bulkActions = ['delete', 'moveGroup', 'enable', 'disable', 'applyTemplate'] as const;
export const bulkBody = z
  .object({
    action: z.enum(bulkActions),
    ids: z.array(entityId).min(1).max(1000),
    groupId: entityId.nullish(),
    templateId: entityId.nullish(),
  })
  .strict()
  .refine((b) => b.action !== 'moveGroup' || b.groupId !== undefined, { message: 'moveGroup needs groupId', path: ['groupId'] })
  .refine((b) => b.action !== 'applyTemplate' || !!b.templateId, { message: 'applyTemplate needs templateId', path: ['templateId'] });
export const bulkResult = z.object({
  ok: z.number().int(),
  failed: z.number().int(),
  results: z.array(z.object({ id: z.string(), ok: z.boolean(), code: z.string().nullable(), msg: z.string().nullable() })),
});
