import { DomainError, RULE_CHAIN_FORMAT, ruleMessageFields, type RuleChainFile, type RuleMessage, type RuleRoutes } from '@iot/contracts';
import { callerOf, type Handlers, type RequestContext } from '@iot/contracts/http/handler.ts';
import { rawAnswer } from '@iot/contracts/http/route.ts';
import {
  chainVersionOf,
  chainVersionsPage,
  nodeDebugSwitches,
  nodeTraces,
  ruleChainById,
  ruleChainsPage,
  ruleFailureById,
  ruleFailuresPage,
  type RuleChainRecord,
} from '@iot/projections/rule/read.ts';
import { deviceForRules, productForRules } from '@iot/projections/device/read.ts';
import { dryRunPorts, runChain } from '@iot/projections/rule/engine.ts';
import { usernamesById } from '@iot/projections/user/read.ts';
import { iso, mapRows } from '../shared/paging.ts';

const toRow = ({ createdAt, updatedAt, ...chain }: RuleChainRecord) => ({ ...chain, createdAt: iso(createdAt), updatedAt: iso(updatedAt) });

/** A chain of the caller's tenant, or NOT_FOUND. */
async function chainOfCaller(ctx: RequestContext, id: string) {
  const row = await ruleChainById(ctx.ports.db, callerOf(ctx).tenantId, id);
  if (!row) throw new DomainError('NOT_FOUND');
  return row;
}

/** A chain of the caller's tenant and one of its versions (the running one unless asked), or NOT_FOUND. */
async function chainAt(ctx: RequestContext, id: string, version?: number) {
  const row = await chainOfCaller(ctx, id);
  const found = await chainVersionOf(ctx.ports.db, callerOf(ctx).tenantId, id, version);
  if (!found) throw new DomainError('NOT_FOUND', { field: 'version' });
  return { row, ...found };
}

type RuleReads =
  | 'ruleChain.list'
  | 'ruleChain.detail'
  | 'ruleChain.versions'
  | 'ruleChain.export'
  | 'ruleChain.failures'
  | 'ruleChain.debug'
  | 'ruleChain.traces'
  | 'ruleChain.replay';

export const ruleQueryHandlers: Pick<Handlers<RuleRoutes>, RuleReads> = {
  async 'ruleChain.list'({ query }, ctx) {
    const { page, pageSize, sort, order, ...filter } = query;
    return mapRows(await ruleChainsPage(ctx.ports.db, callerOf(ctx).tenantId, filter, { page, pageSize, sort, order }), toRow);
  },

  async 'ruleChain.detail'({ query }, ctx) {
    const { row, version, chain } = await chainAt(ctx, query.id, query.version);
    return { ...toRow(row), version, chain };
  },

  async 'ruleChain.versions'({ query }, ctx) {
    const { tenantId } = callerOf(ctx);
    await chainOfCaller(ctx, query.id);
    const { id, ...paging } = query;
    const versions = await chainVersionsPage(ctx.ports.db, tenantId, id, paging);
    const names = await usernamesById(ctx.ports.db, [...new Set(versions.rows.map((v) => v.createdBy ?? ''))], tenantId);
    return mapRows(versions, ({ createdAt, createdBy, ...v }) => ({
      ...v,
      createdBy: createdBy ? (names.get(createdBy) ?? null) : null,
      createdAt: iso(createdAt),
    }));
  },

  async 'ruleChain.export'({ query }, ctx) {
    const found = await chainAt(ctx, query.id, query.version);
    const file: RuleChainFile = { format: RULE_CHAIN_FORMAT, formatVersion: 1, chain: found.chain };
    const name = `rule-chain-${query.id}-v${found.version}.json`;
    return rawAnswer('application/json', JSON.stringify(file, null, 2), name);
  },

  async 'ruleChain.failures'({ query }, ctx) {
    const { page, pageSize, sort, order, ...filter } = query;
    return mapRows(await ruleFailuresPage(ctx.ports.db, callerOf(ctx).tenantId, filter, { page, pageSize, sort, order }), (f) => ({
      ...f,
      createdAt: iso(f.createdAt),
    }));
  },

  async 'ruleChain.debug'({ query }, ctx) {
    await chainOfCaller(ctx, query.id);
    const rows = await nodeDebugSwitches(ctx.ports.db, callerOf(ctx).tenantId, query.id);
    const now = Date.now();
    return rows.map((d) => ({ nodeId: d.nodeId, until: iso(d.until), sampleRate: d.sampleRate, active: d.until.getTime() > now }));
  },

  async 'ruleChain.traces'({ query }, ctx) {
    await chainOfCaller(ctx, query.id);
    const rows = await nodeTraces(ctx.ports.db, callerOf(ctx).tenantId, query.id, query.nodeId, query.limit);
    return rows.map((t) => ({ ...t, createdAt: iso(t.createdAt) }));
  },

  async 'ruleChain.replay'({ body }, ctx) {
    const { tenantId } = callerOf(ctx);
    const { db } = ctx.ports;
    const { version, chain } = await chainAt(ctx, body.id, body.version);
    let message: RuleMessage;
    if (body.failureId !== undefined) {
      const failure = await ruleFailureById(db, tenantId, body.failureId);
      if (!failure) throw new DomainError('NOT_FOUND', { field: 'failureId' });
      message = { ...ruleMessageFields.parse(failure.message), tenantId };
    } else {
      message = { ...body.message!, tenantId };
    }
    // Reads as the live chain reads (devices, products, latest values, called chains); every action runs dry.
    const timeseries = ctx.ports.timeseries;
    const ports = dryRunPorts(
      {
        device: (t, deviceId) => deviceForRules(db, t, deviceId),
        product: (t, productId) => productForRules(db, t, productId),
        latest: async (t, deviceId, variables) =>
          timeseries
            ? Object.fromEntries(
                (await timeseries.latest({ tenantId: t, deviceIds: [deviceId], variables })).map((r) => [r.variable, r.value ?? r.text]),
              )
            : {},
      },
      async (t, chainId) => (await chainVersionOf(db, t, chainId))?.chain ?? null,
    );
    const result = await runChain(ports, body.id, chain, message, { dryRun: true });
    return {
      version,
      failures: result.failures.length,
      steps: result.traces.map(({ message: output, ...t }) => ({ ...t, output })),
    };
  },
};
