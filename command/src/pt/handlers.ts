import { randomUUID } from 'node:crypto';
import {
  DomainError,
  rolloutFileTypes,
  valueFits,
  type PtCheck,
  type PtConfigFields,
  type PtRoutes,
  type PtRun,
  type PtStepBase,
  type ThingFunction,
} from '@iot/contracts';
import { callerOf, type Handlers, type RequestContext } from '@iot/contracts/http/handler.ts';
import { loadState, newAggregateId } from '../handler.ts';
import { commandContextOf, runCommand } from '../request.ts';
import { perItemFound } from '../shared/bulk.ts';
import { setPassword } from '../auth/credentials.ts';
import { productOf } from '../product/handlers.ts';
import { deviceDecider, deviceStream } from '../device/decide.ts';
import {
  ptBatchDecider,
  ptBatchStream,
  ptConfigDecider,
  ptConfigStream,
  ptConfigSubject,
  ptDeviceDecider,
  ptDeviceStream,
  ptIccidDecider,
  ptIccidStream,
  type PtDeviceCommand,
} from './decide.ts';
import { importIccids } from './iccid-import.ts';
import { createOtaTask } from '../ota/handlers.ts';

type Body<K extends keyof PtRoutes> = Parameters<Handlers<PtRoutes>[K]>[0]['body'];

/** The caller's configuration: its fields and bound users. */
export async function ptConfigOf(ctx: RequestContext, id: string, field = 'configId') {
  const { state } = await loadState(ctx.ports.store, ptConfigDecider, ptConfigStream(callerOf(ctx).tenantId, id));
  if (!state.exists || state.deleted || !state.fields) throw new DomainError('NOT_FOUND', { field });
  return { fields: state.fields, boundUserIds: state.boundUserIds };
}

async function batchExists(ctx: RequestContext, id: string | null) {
  if (!id) return;
  const { state } = await loadState(ctx.ports.store, ptBatchDecider, ptBatchStream(callerOf(ctx).tenantId, id));
  if (!state.exists || state.deleted) throw new DomainError('NOT_FOUND', { field: 'batchId' });
}

async function userOfTenant(ctx: RequestContext, userId: string, field: string) {
  const user = await ctx.ports.lookups.userById(userId);
  if (!user || user.tenantId !== callerOf(ctx).tenantId) throw new DomainError('NOT_FOUND', { field });
}

/** A configuration's fields from a body: the product's name and code as they are now, its references checked. */
async function configFields(ctx: RequestContext, body: Body<'ptConfig.create'>, hasPassword: boolean): Promise<PtConfigFields> {
  const { password: _password, ...rest } = body;
  const product = await productOf(ctx, rest.productId);
  await batchExists(ctx, rest.batchId);
  if (rest.qcTesterId) await userOfTenant(ctx, rest.qcTesterId, 'qcTesterId');
  return { ...rest, productName: product.fields!.name, productCode: product.fields!.code, hasPassword };
}

/** The checks of a run: each parameter's latest value against its data type and range in the device's thing model. */
export function checksOf(functions: ThingFunction[], parameters: string[], latest: Map<string, number | string | null>): PtRun['checks'] {
  const properties = functions.filter((f) => f.type === 'property' && (parameters.length === 0 || parameters.includes(f.identifier)));
  return properties.map((f): PtCheck => {
    const spec = f.type === 'property' ? f.dataType : null;
    const value = latest.has(f.identifier) ? latest.get(f.identifier)! : null;
    const fits = value !== null && spec !== null && valueFits(spec, value);
    return {
      identifier: f.identifier,
      name: f.name,
      value,
      min: spec?.min ?? null,
      max: spec?.max ?? null,
      unit: spec?.unit ?? null,
      ok: fits,
      fault: value === null ? 'noValue' : fits ? null : 'outOfRange',
    };
  });
}

interface StepTarget {
  base: PtStepBase;
  config: PtConfigFields;
  device: { name: string; productId: string; modelVersion: number };
}

/**
 * The device and configuration a step names, checked: the device is the caller's and of the configuration's product;
 * a production step is for the users bound to the configuration (when it has any), a QC step for its QC tester (when set).
 */
async function stepTarget(
  ctx: RequestContext,
  body: { configId: string; deviceId: string },
  stage: 'production' | 'qc',
): Promise<StepTarget> {
  const caller = callerOf(ctx);
  const { fields: config, boundUserIds } = await ptConfigOf(ctx, body.configId);
  const { state } = await loadState(ctx.ports.store, deviceDecider, deviceStream(caller.tenantId, body.deviceId));
  if (!state.exists || state.deleted) throw new DomainError('NOT_FOUND', { field: 'deviceId' });
  if (state.productId !== config.productId) throw new DomainError('PT_PRODUCT_MISMATCH');
  if (stage === 'production' && boundUserIds.length > 0 && !boundUserIds.includes(caller.id)) throw new DomainError('PT_NOT_BOUND');
  if (stage === 'qc' && config.qcTesterId && config.qcTesterId !== caller.id) throw new DomainError('PT_NOT_QC_TESTER');
  return {
    config,
    device: { name: state.name ?? '', productId: state.productId, modelVersion: state.modelVersion },
    base: {
      deviceId: body.deviceId,
      configId: body.configId,
      sn: state.sn ?? '',
      productName: config.productName,
      productCode: config.productCode,
      operator: caller.username,
    },
  };
}

/** Reads the device's latest values and checks them: what a production or QC test runs. */
async function runTest(ctx: RequestContext, target: StepTarget): Promise<PtRun> {
  const { tenantId } = callerOf(ctx);
  const functions = await ctx.ports.lookups.thingModelOf(tenantId, target.device.productId, target.device.modelVersion);
  const rows = (await ctx.ports.timeseries?.latest({ tenantId, deviceIds: [target.base.deviceId] })) ?? [];
  const latest = new Map(rows.map((r) => [r.variable, r.value ?? r.text]));
  const checks = checksOf(functions, target.config.parameters, latest);
  return { passed: checks.length > 0 && checks.every((c) => c.ok), checks, testedAt: new Date().toISOString() };
}

async function step(ctx: RequestContext, target: StepTarget, command: PtDeviceCommand) {
  const stream = ptDeviceStream(callerOf(ctx).tenantId, target.base.deviceId);
  const result = await runCommand(ctx, ptDeviceDecider, stream, command);
  return { deviceId: target.base.deviceId, testStatus: result.state.status };
}

const reportOf = (target: StepTarget) => ({
  reportId: randomUUID(),
  alias: target.config.alias,
  deviceName: target.device.name,
  remark: null,
});

type PtWrites = Exclude<
  keyof PtRoutes,
  | 'ptConfig.list'
  | 'ptBatch.list'
  | 'ptIccid.list'
  | 'ptIccid.template'
  | 'ptBinding.list'
  | 'production.devices'
  | 'quality.devices'
  | 'ptReport.list'
  | 'ptReport.export'
  | 'qcReport.list'
  | 'qcReport.export'
  | 'ptOperation.list'
  | 'ptOperation.export'
>;

/** Test configurations, batches, ICCIDs, user binding and the steps of a device's product and quality test. */
export const ptHandlers: Pick<Handlers<PtRoutes>, PtWrites> = {
  async 'ptConfig.create'({ body }, ctx) {
    const { tenantId } = callerOf(ctx);
    const id = newAggregateId(commandContextOf(ctx));
    const fields = await configFields(ctx, body, Boolean(body.password));
    if (body.password) await setPassword(ctx.ports.db, ptConfigSubject(id), tenantId, body.password);
    await runCommand(ctx, ptConfigDecider, ptConfigStream(tenantId, id), { type: 'Create', id, fields });
    return { id };
  },
  async 'ptConfig.update'({ body }, ctx) {
    const { tenantId } = callerOf(ctx);
    const { id, ...rest } = body;
    const before = await ptConfigOf(ctx, id, 'id');
    const hasPassword = rest.password === undefined ? before.fields.hasPassword : rest.password !== null;
    const fields = await configFields(ctx, rest, hasPassword);
    if (rest.password) await setPassword(ctx.ports.db, ptConfigSubject(id), tenantId, rest.password);
    if (rest.password === null) await ctx.ports.db.query('delete from auth_credentials where subject_id = $1', [ptConfigSubject(id)]);
    await runCommand(ctx, ptConfigDecider, ptConfigStream(tenantId, id), { type: 'Update', id, fields });
    return { id };
  },
  async 'ptConfig.delete'({ query }, ctx) {
    const { tenantId } = callerOf(ctx);
    return perItemFound(
      query.ids,
      async (id) => {
        await runCommand(ctx, ptConfigDecider, ptConfigStream(tenantId, id), { type: 'Delete', id });
        await ctx.ports.db.query('delete from auth_credentials where subject_id = $1', [ptConfigSubject(id)]);
      },
      ctx.lang,
    );
  },

  async 'ptBatch.create'({ body }, ctx) {
    if (body.productId) await productOf(ctx, body.productId);
    const id = newAggregateId(commandContextOf(ctx));
    await runCommand(ctx, ptBatchDecider, ptBatchStream(callerOf(ctx).tenantId, id), { type: 'Create', id, fields: body });
    return { id };
  },
  async 'ptBatch.update'({ body }, ctx) {
    const { id, ...fields } = body;
    if (fields.productId) await productOf(ctx, fields.productId);
    await runCommand(ctx, ptBatchDecider, ptBatchStream(callerOf(ctx).tenantId, id), { type: 'Update', id, fields });
    return { id };
  },
  async 'ptBatch.delete'({ query }, ctx) {
    const stream = (id: string) => ptBatchStream(callerOf(ctx).tenantId, id);
    return perItemFound(query.ids, (id) => runCommand(ctx, ptBatchDecider, stream(id), { type: 'Delete', id }), ctx.lang);
  },

  async 'ptIccid.create'({ body }, ctx) {
    await batchExists(ctx, body.batchId);
    await runCommand(ctx, ptIccidDecider, ptIccidStream(callerOf(ctx).tenantId, body.iccid), { type: 'Add', fields: body });
    return { id: body.iccid };
  },
  'ptIccid.import': async ({ body, query }, ctx) => {
    await batchExists(ctx, query.batchId ?? null);
    return importIccids(ctx, body, query.batchId ?? null);
  },
  async 'ptIccid.delete'({ query }, ctx) {
    const stream = (iccid: string) => ptIccidStream(callerOf(ctx).tenantId, iccid.toUpperCase());
    return perItemFound(
      query.ids,
      (iccid) => runCommand(ctx, ptIccidDecider, stream(iccid), { type: 'Delete', iccid: iccid.toUpperCase() }),
      ctx.lang,
    );
  },

  async 'ptBinding.bind'({ body }, ctx) {
    await ptConfigOf(ctx, body.configId);
    for (const userId of new Set(body.userIds)) await userOfTenant(ctx, userId, 'userIds');
    const stream = ptConfigStream(callerOf(ctx).tenantId, body.configId);
    await runCommand(ctx, ptConfigDecider, stream, { type: 'Bind', id: body.configId, userIds: body.userIds });
    return { id: body.configId };
  },
  async 'ptBinding.unbind'({ query }, ctx) {
    await ptConfigOf(ctx, query.configId);
    const stream = ptConfigStream(callerOf(ctx).tenantId, query.configId);
    await runCommand(ctx, ptConfigDecider, stream, { type: 'Unbind', id: query.configId, userIds: query.userIds });
    return { id: query.configId };
  },

  async 'production.test'({ body }, ctx) {
    const target = await stepTarget(ctx, body, 'production');
    const run = await runTest(ctx, target);
    await step(ctx, target, { type: 'Test', base: target.base, run });
    return { passed: run.passed, checks: run.checks };
  },
  async 'production.report'({ body }, ctx) {
    const target = await stepTarget(ctx, body, 'production');
    return step(ctx, target, { type: 'GenerateReport', base: target.base, report: reportOf(target) });
  },
  async 'production.submit'({ body }, ctx) {
    const target = await stepTarget(ctx, body, 'production');
    return step(ctx, target, { type: 'Submit', base: target.base, toQc: target.config.qcPermission });
  },
  async 'production.return'({ body }, ctx) {
    const target = await stepTarget(ctx, body, 'production');
    return step(ctx, target, { type: 'ReturnToProduction', base: target.base, reason: body.reason });
  },
  async 'production.upgrade'({ body }, ctx) {
    const target = await stepTarget(ctx, body, 'production');
    const fileId = target.config.upgradeFileId;
    if (!fileId) throw new DomainError('PT_UPGRADE_PACKAGE');
    // The package must still be stored and be a file a rollout sends; the rollout to this one device delivers it.
    const file = await ctx.ports.lookups.fileById(callerOf(ctx).tenantId, fileId);
    if (!file || !rolloutFileTypes.some((t) => t === file.fileType)) throw new DomainError('OTA_FILE_UNFIT', { field: 'upgradeFileId' });
    const answer = await step(ctx, target, { type: 'Upgrade', base: target.base, fileId });
    const otaTaskId = await createOtaTask(ctx.ports, commandContextOf(ctx), {
      name: `PT ${target.base.sn} ${file.version ?? file.name}`.slice(0, 64),
      fileId,
      target: { kind: 'devices', deviceIds: [body.deviceId] },
      waves: { size: 1, pauseSec: 0, failurePercent: 100 },
    });
    return { ...answer, otaTaskId };
  },
  async 'production.sn'({ body }, ctx) {
    const { tenantId } = callerOf(ctx);
    const target = await stepTarget(ctx, body, 'production');
    const iccid = body.iccid ?? null;
    if (target.config.iccidCheck && !iccid) throw new DomainError('PT_ICCID_REQUIRED');
    if (iccid) {
      const { state } = await loadState(ctx.ports.store, ptIccidDecider, ptIccidStream(tenantId, iccid));
      if (!state.exists || (state.deviceId && state.deviceId !== body.deviceId)) throw new DomainError('PT_ICCID_UNKNOWN');
    }
    // The SN step is decided first (its refusals leave the ICCID free), then the ICCID is paired.
    const answer = await step(ctx, target, { type: 'SetSn', base: target.base, productSn: body.sn, iccid });
    if (iccid)
      await runCommand(ctx, ptIccidDecider, ptIccidStream(tenantId, iccid), {
        type: 'Assign',
        iccid,
        deviceId: body.deviceId,
        sn: target.base.sn,
      });
    return answer;
  },
  async 'quality.test'({ body }, ctx) {
    const target = await stepTarget(ctx, body, 'qc');
    const run = await runTest(ctx, target);
    await step(ctx, target, { type: 'QcTest', base: target.base, run, remark: body.remark });
    return { passed: run.passed, checks: run.checks };
  },
  async 'quality.finish'({ body }, ctx) {
    const target = await stepTarget(ctx, body, 'qc');
    return step(ctx, target, { type: 'QcFinish', base: target.base, report: reportOf(target) });
  },
  async 'quality.submit'({ body }, ctx) {
    const target = await stepTarget(ctx, body, 'qc');
    return step(ctx, target, { type: 'QcSubmit', base: target.base });
  },
  async 'quality.return'({ body }, ctx) {
    const target = await stepTarget(ctx, body, 'qc');
    return step(ctx, target, { type: 'QcReturn', base: target.base, reason: body.reason });
  },
};
