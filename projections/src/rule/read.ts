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

// ---------------------------------------------------------------- observability: debug switches, failures, traces

export type NodeDebugRecord = { chainId: string; nodeId: string; until: Date; sampleRate: number };

/** The debug switches of a chain's nodes (on or past), or of every chain of every tenant still on (`tenantId` null). */
export async function nodeDebugSwitches(
  db: Sql,
  tenantId: string | null,
  chainId?: string,
): Promise<Array<NodeDebugRecord & { tenantId: string }>> {
  const rows = await db.query<NodeDebugRecord & { tenantId: string }>(
    tenantId === null
      ? `select tenant_id as "tenantId", chain_id as "chainId", node_id as "nodeId", until, sample_rate as "sampleRate"
         from rm_rule_node_debug where until > now()`
      : `select tenant_id as "tenantId", chain_id as "chainId", node_id as "nodeId", until, sample_rate as "sampleRate"
         from rm_rule_node_debug where tenant_id = $1 and chain_id = $2 order by node_id`,
    tenantId === null ? [] : [tenantId, chainId],
  );
  return rows.rows;
}

export type RuleFailureRecord = {
  id: string;
  chainId: string;
  nodeId: string;
  nodeName: string;
  kind: string;
  error: string;
  message: Record<string, unknown>;
  path: string[];
  createdAt: Date;
};
const FAILURE = `id::text, chain_id as "chainId", node_id as "nodeId", node_name as "nodeName", kind, error, message, path,
  created_at as "createdAt"`;

/** A page of a tenant's captured failures, newest first, of a chain or one of its nodes. */
export async function ruleFailuresPage(
  db: Sql,
  tenantId: string,
  filter: { chainId?: string; nodeId?: string },
  page: PageQuery,
): Promise<Page<RuleFailureRecord>> {
  const spec: ListSpec = {
    select: FAILURE,
    from: 'rule_failures',
    where: ['tenant_id = $1'],
    params: [tenantId],
    sortable: { createTime: 'id' },
    defaultSort: 'id',
  };
  if (filter.chainId) spec.where.push(`chain_id = ${param(spec.params, filter.chainId)}`);
  if (filter.nodeId) spec.where.push(`node_id = ${param(spec.params, filter.nodeId)}`);
  return pageRows<RuleFailureRecord>(db, page, spec);
}

export async function ruleFailureById(db: Sql, tenantId: string, id: string): Promise<RuleFailureRecord | null> {
  const rows = await db.query<RuleFailureRecord>(`select ${FAILURE} from rule_failures where tenant_id = $1 and id = $2`, [tenantId, id]);
  return rows.rows[0] ?? null;
}

export type NodeTraceRecord = {
  id: string;
  chainId: string;
  nodeId: string;
  labels: string[];
  input: Record<string, unknown>;
  output: Record<string, unknown>;
  error: string | null;
  createdAt: Date;
};

/** A node's last traced messages, newest first. */
export async function nodeTraces(db: Sql, tenantId: string, chainId: string, nodeId: string, limit: number): Promise<NodeTraceRecord[]> {
  const rows = await db.query<NodeTraceRecord>(
    `select id::text, chain_id as "chainId", node_id as "nodeId", labels, input, output, error, created_at as "createdAt"
     from rule_debug_traces where tenant_id = $1 and chain_id = $2 and node_id = $3 order by id desc limit $4`,
    [tenantId, chainId, nodeId, limit],
  );
  return rows.rows;
}

/** When each chain of the tenant last ran a message (rule_chain_runs, written by the journal), by chain id. */
export async function chainLastRuns(db: Sql, tenantId: string): Promise<Map<string, Date>> {
  const rows = await db.query<{ chainId: string; lastAt: Date }>(
    'select chain_id as "chainId", last_at as "lastAt" from rule_chain_runs where tenant_id = $1',
    [tenantId],
  );
  return new Map(rows.rows.map((r) => [r.chainId, r.lastAt]));
}
