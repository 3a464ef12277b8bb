import {
  ROOT_CHAIN_ID,
  defaultRootChain,
  type Page,
  type PageQuery,
  type RuleChainDefinition,
  type ruleChainSortable,
} from '@iot/contracts';
import type { Sql } from '@iot/contracts/ports/sql.ts';
import { pageRows, param, type ListSpec } from '../shared/page.ts';

/** A chain of the library as the ruleChains projection keeps it. */
export type RuleChainRecord = {
  id: string;
  name: string;
  description: string | null;
  root: boolean;
  latestVersion: number;
  runningVersion: number;
  nodeCount: number;
  createdAt: Date;
  updatedAt: Date;
};
const CHAIN = `id, name, description, root, latest_version as "latestVersion", running_version as "runningVersion",
  node_count as "nodeCount", created_at as "createdAt", updated_at as "updatedAt"`;
const chainSortBy = { createTime: 'created_at', updateTime: 'updated_at', name: 'lower(name)' } satisfies Record<
  (typeof ruleChainSortable)[number],
  string
>;

/** A page of a tenant's chains, filtered by a part of the name or by being the root; the root chain first, then newest. */
export async function ruleChainsPage(
  db: Sql,
  tenantId: string,
  filter: { name?: string; root?: boolean },
  page: PageQuery,
): Promise<Page<RuleChainRecord>> {
  const spec: ListSpec = {
    select: CHAIN,
    from: 'rm_rule_chains',
    where: ['tenant_id = $1'],
    params: [tenantId],
    sortable: chainSortBy,
    defaultSort: 'created_at',
  };
  const { where, params } = spec;
  if (filter.name) where.push(`name ilike ${param(params, `%${filter.name}%`)}`);
  if (filter.root !== undefined) where.push(`root = ${param(params, filter.root)}`);
  return pageRows<RuleChainRecord>(db, page, spec);
}

/** A chain of a tenant, by id. */
export async function ruleChainById(db: Sql, tenantId: string, id: string): Promise<RuleChainRecord | null> {
  return (
    (await db.query<RuleChainRecord>(`select ${CHAIN} from rm_rule_chains where tenant_id = $1 and id = $2`, [tenantId, id])).rows[0] ??
    null
  );
}

/** One version of a chain, whole; without `version`, the running one. */
export async function chainVersionOf(
  db: Sql,
  tenantId: string,
  chainId: string,
  version?: number,
): Promise<{ version: number; chain: RuleChainDefinition } | null> {
  const rows = await db.query<{ version: number; chain: RuleChainDefinition }>(
    version === undefined
      ? `select v.version, v.chain from rm_rule_chain_versions v join rm_rule_chains c
           on c.tenant_id = v.tenant_id and c.id = v.chain_id and c.running_version = v.version
         where v.tenant_id = $1 and v.chain_id = $2`
      : 'select version, chain from rm_rule_chain_versions where tenant_id = $1 and chain_id = $2 and version = $3',
    version === undefined ? [tenantId, chainId] : [tenantId, chainId, version],
  );
  return rows.rows[0] ?? null;
}

/**
 * The chain every message of a tenant enters: its root chain's running version, or the default (a Warehousing node)
 * for a tenant whose root chain is not made yet, which behaves as the platform did before chains.
 */
export async function runningRootChain(db: Sql, tenantId: string): Promise<{ version: number; chain: RuleChainDefinition }> {
  return (await chainVersionOf(db, tenantId, ROOT_CHAIN_ID)) ?? { version: 0, chain: defaultRootChain };
}

export type RuleChainVersionRecord = {
  version: number;
  name: string;
  nodeCount: number;
  restoredFrom: number | null;
  running: boolean;
  createdBy: string | null;
  createdAt: Date;
};

/** A page of a chain's versions, newest first (or oldest first with `order=asc`). */
export async function chainVersionsPage(
  db: Sql,
  tenantId: string,
  chainId: string,
  page: PageQuery,
): Promise<Page<RuleChainVersionRecord>> {
  return pageRows<RuleChainVersionRecord>(db, page, {
    select: `v.version, v.name, v.node_count as "nodeCount", v.restored_from as "restoredFrom", v.version = c.running_version as running,
      v.created_by as "createdBy", v.created_at as "createdAt"`,
    from: 'rm_rule_chain_versions v join rm_rule_chains c on c.tenant_id = v.tenant_id and c.id = v.chain_id',
    where: ['v.tenant_id = $1', 'v.chain_id = $2'],
    params: [tenantId, chainId],
    sortable: { version: 'v.version' },
    defaultSort: 'v.version',
  });
}
