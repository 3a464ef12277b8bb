import { z } from 'zod';
import { entityId, idList, optionalText } from '../identity/common.ts';
import { identifier } from '../device/thing-model.ts';

// ---------------------------------------------------------------- test configuration (spec §3 PT config)

/** A password of the test station's login: a string sets it, null removes it, absent keeps the stored one (never answered). */
const password = z.string().min(6).max(16).nullish();

/** What an operator sets on a test configuration; the product's name and code are taken from the product. */
export const ptConfigFields = z
  .object({
    alias: z.string().trim().min(1).max(64),
    productId: entityId,
    batchId: entityId.nullish().transform((v) => v ?? null),
    /** Whether the configuration's devices go through the quality test after production (spec §6 "QC permission"). */
    qcPermission: z.boolean().default(true),
    username: optionalText(64),
    /** Whether setting a device's SN also pairs it with an imported ICCID (its SIM card). */
    iccidCheck: z.boolean().default(false),
    /** The properties the production test reads and checks; empty: every property of the thing model. */
    parameters: z.array(identifier).max(200).default([]),
    /** The upgrade package: a stored file's id (files capability). */
    upgradeFileId: entityId.nullish().transform((v) => v ?? null),
    /** The user who runs the quality test; null: anyone holding the quality screen. */
    qcTesterId: entityId.nullish().transform((v) => v ?? null),
    remark: optionalText(256),
  })
  .strict();
export const ptConfigCreateBody = ptConfigFields.extend({ password }).strict();
export const ptConfigUpdateBody = ptConfigCreateBody.extend({ id: entityId }).strict();
export type PtConfigBody = z.output<typeof ptConfigFields>;

/** What a configuration's events carry: the body's fields, the product as it was named then, and whether a password is set. */
export interface PtConfigFields extends PtConfigBody {
  productName: string;
  productCode: string;
  hasPassword: boolean;
}
export const ptConfigRow = z.object({
  id: z.string(),
  alias: z.string(),
  productId: z.string(),
  productName: z.string(),
  productCode: z.string(),
  batchId: z.string().nullable(),
  batchNo: z.string().nullable(),
  qcPermission: z.boolean(),
  username: z.string().nullable(),
  hasPassword: z.boolean(),
  iccidCheck: z.boolean(),
  parameters: z.array(z.string()),
  upgradeFileId: z.string().nullable(),
  qcTesterId: z.string().nullable(),
  qcTesterName: z.string().nullable(),
  boundUserIds: z.array(z.string()),
  boundUserNames: z.array(z.string()),
  remark: z.string().nullable(),
  creator: z.string(),
  createTime: z.string(),
});
export type PtConfigRow = z.output<typeof ptConfigRow>;
export const ptConfigSortable = ['createTime', 'alias'] as const;

// ---------------------------------------------------------------- batches

export const ptBatchFields = z
  .object({
    batchNo: z.string().trim().min(1).max(64),
    productId: entityId.nullish().transform((v) => v ?? null),
    quantity: z
      .number()
      .int()
      .min(0)
      .max(10_000_000)
      .nullish()
      .transform((v) => v ?? null),
    remark: optionalText(256),
  })
  .strict();
export const ptBatchUpdateBody = ptBatchFields.extend({ id: entityId }).strict();
export type PtBatchFields = z.output<typeof ptBatchFields>;
export const ptBatchRow = z.object({
  id: z.string(),
  batchNo: z.string(),
  productId: z.string().nullable(),
  quantity: z.number().int().nullable(),
  remark: z.string().nullable(),
  createTime: z.string(),
});
export const ptBatchSortable = ['createTime', 'batchNo'] as const;

// ---------------------------------------------------------------- ICCIDs

/** An ICCID (ITU-T E.118): 18 to 22 digits, a trailing F allowed as some cards print it. */
export const iccid = z
  .string()
  .trim()
  .regex(/^\d{18,22}F?$/i, { message: 'An ICCID is 18 to 22 digits' })
  .transform((v) => v.toUpperCase());
export const ptIccidBody = z.object({ iccid, batchId: entityId.nullish().transform((v) => v ?? null), remark: optionalText(256) }).strict();
export interface PtIccidFields {
  iccid: string;
  batchId: string | null;
  remark: string | null;
}
export const ptIccidRow = z.object({
  id: z.string(),
  iccid: z.string(),
  batchId: z.string().nullable(),
  batchNo: z.string().nullable(),
  deviceId: z.string().nullable(),
  deviceSn: z.string().nullable(),
  remark: z.string().nullable(),
  createTime: z.string(),
});
export const ptIccidSortable = ['createTime', 'iccid'] as const;
/** Why a row of an ICCID import was refused. */
export const ptIccidFaultReasons = ['required', 'invalid', 'repeats', 'exists'] as const;
export const ptIccidImportResult = z.object({
  total: z.number().int(),
  created: z.number().int(),
  failed: z.number().int(),
  faults: z.array(
    z.object({ row: z.number().int(), iccid: z.string().nullable(), reason: z.enum(ptIccidFaultReasons), message: z.string() }),
  ),
});

// ---------------------------------------------------------------- user binding

export const ptBindingBody = z.object({ configId: entityId, userIds: idList }).strict();
export const ptBindingRow = z.object({ userId: z.string(), username: z.string(), bound: z.boolean() });

// ---------------------------------------------------------------- the flow of a device (spec §4 "Product test flow")

/**
 * Where a device stands in the product test: production tests it, makes a report, submits it; QC tests it, finishes
 * (its report) and submits it, or returns it to production. `completed` is the end; a returned device starts again.
 */
export const ptStatuses = ['untested', 'tested', 'reported', 'submitted', 'qcTested', 'qcFinished', 'completed', 'returned'] as const;
export type PtStatus = (typeof ptStatuses)[number];
/** The steps, as the operation records name them. */
export const ptOperations = [
  'test',
  'report',
  'submit',
  'returnToProduction',
  'upgrade',
  'setSn',
  'qcTest',
  'qcFinish',
  'qcSubmit',
  'qcReturn',
] as const;
export type PtOperation = (typeof ptOperations)[number];

/** One parameter read from the device and checked against the thing model's range. */
export const ptCheck = z.object({
  identifier: z.string(),
  name: z.string(),
  value: z.union([z.number(), z.string(), z.null()]),
  min: z.number().nullable(),
  max: z.number().nullable(),
  unit: z.string().nullable(),
  ok: z.boolean(),
  /** Why a check failed: no value reported yet, or a value outside the range or type. */
  fault: z.enum(['noValue', 'outOfRange']).nullable(),
});
export type PtCheck = z.output<typeof ptCheck>;

/** A step's target: a device under a configuration. */
export const ptStepBody = z.object({ configId: entityId, deviceId: entityId }).strict();
export const ptReturnBody = ptStepBody.extend({ reason: optionalText(256) }).strict();
export const ptSnBody = ptStepBody.extend({ sn: z.string().trim().min(1).max(64), iccid: iccid.nullish() }).strict();
export const ptQcTestBody = ptStepBody.extend({ remark: optionalText(256) }).strict();
export const ptTestResult = z.object({ passed: z.boolean(), checks: z.array(ptCheck) });

/** A device of a configuration's product as the production and quality screens list it (spec §3 PT device). */
export const ptDeviceRow = z.object({
  deviceId: z.string(),
  name: z.string(),
  sn: z.string(),
  /** The device's connection: online or offline. */
  deviceStatus: z.string(),
  testStatus: z.enum(ptStatuses),
  passed: z.boolean().nullable(),
  productSn: z.string().nullable(),
  iccid: z.string().nullable(),
  reportId: z.string().nullable(),
  qcReportId: z.string().nullable(),
  updateTime: z.string().nullable(),
});
export const ptDeviceQuery = z
  .object({
    configId: entityId,
    page: z.coerce.number().int().min(1).default(1),
    pageSize: z.coerce.number().int().min(1).max(500).default(20),
    sn: z.string().trim().max(64).optional(),
    testStatus: z.enum(ptStatuses).optional(),
  })
  .strict();

export const ptReportKinds = ['pt', 'qc'] as const;
export type PtReportKind = (typeof ptReportKinds)[number];
/** A generated report, as its event carries it: the device and product as they were, the checks, who and when. */
export const ptReport = z.object({
  id: z.string(),
  kind: z.enum(ptReportKinds),
  configId: z.string(),
  alias: z.string(),
  deviceId: z.string(),
  sn: z.string(),
  deviceName: z.string(),
  productName: z.string(),
  productCode: z.string(),
  passed: z.boolean(),
  checks: z.array(ptCheck),
  remark: z.string().nullable(),
  tester: z.string(),
  testTime: z.string(),
  createTime: z.string(),
});
export type PtReport = z.output<typeof ptReport>;
export const ptReportSortable = ['createTime', 'sn'] as const;
export const ptExportFormats = ['xlsx', 'pdf'] as const;

/** An operation record (spec §3): device SN, product name and code, operation, user, time. */
export const ptOperationRow = z.object({
  id: z.string(),
  deviceId: z.string(),
  sn: z.string(),
  productName: z.string(),
  productCode: z.string(),
  operation: z.enum(ptOperations),
  detail: z.string().nullable(),
  user: z.string(),
  createTime: z.string(),
});
export const ptOperationSortable = ['createTime', 'sn'] as const;
