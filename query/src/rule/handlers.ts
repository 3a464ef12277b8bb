import { DomainError, RULE_CHAIN_FORMAT, type RuleChainFile, type RuleRoutes } from '@iot/contracts';
import { callerOf, type Handlers, type RequestContext } from '@iot/contracts/http/handler.ts';
import { rawAnswer } from '@iot/contracts/http/route.ts';
import { chainVersionOf, chainVersionsPage, ruleChainById, ruleChainsPage, type RuleChainRecord } from '@iot/projections/rule/read.ts';
import { usernamesById } from '@iot/projections/user/read.ts';
import { iso, mapRows } from '../shared/paging.ts';

const toRow = ({ createdAt, updatedAt, ...chain }: RuleChainRecord) => ({ ...chain, createdAt: iso(createdAt), updatedAt: iso(updatedAt) });

/** A chain of the caller's tenant and one of its versions (the running one unless asked), or NOT_FOUND. */
async function chainAt(ctx: RequestContext, id: string, version?: number) {
  const { tenantId } = callerOf(ctx);
  const row = await ruleChainById(ctx.ports.db, tenantId, id);
  if (!row) throw new DomainError('NOT_FOUND');
  const found = await chainVersionOf(ctx.ports.db, tenantId, id, version);
  if (!found) throw new DomainError('NOT_FOUND', { field: 'version' });
  return { row, ...found };
}

type RuleReads = 'ruleChain.list' | 'ruleChain.detail' | 'ruleChain.versions' | 'ruleChain.export';

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
    if (!(await ruleChainById(ctx.ports.db, tenantId, query.id))) throw new DomainError('NOT_FOUND');
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
};
