import type { RuleChainDefinition, RuleChainEvent } from '@iot/contracts';
import type { Sql } from '@iot/contracts/ports/sql.ts';
import { projection } from '../projection.ts';

async function addVersion(
  tx: Sql,
  tenantId: string,
  chainId: string,
  version: number,
  chain: RuleChainDefinition,
  restoredFrom: number | null,
  createdBy: string,
  at: string,
) {
  await tx.query(
    `insert into rm_rule_chain_versions (tenant_id, chain_id, version, name, node_count, chain, restored_from, created_by, created_at)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9) on conflict do nothing`,
    [tenantId, chainId, version, chain.name, chain.nodes.length, JSON.stringify(chain), restoredFrom, createdBy, at],
  );
}

/** The rule chain library: one row per chain (its latest and running versions), and every version whole. */
export const ruleChainsProjection = projection<RuleChainEvent>({
  name: 'ruleChains',
  handles: ['RuleChainCreated', 'RuleChainSaved', 'RuleChainVersionSwitched', 'RuleChainDeleted'],
  tables: ['rm_rule_chains', 'rm_rule_chain_versions'],
  schema: `
    create table rm_rule_chains (
      tenant_id text not null,
      id text not null,
      name text not null,
      description text,
      root boolean not null,
      latest_version int not null,
      running_version int not null,
      node_count int not null,
      created_at timestamptz not null,
      updated_at timestamptz not null,
      primary key (tenant_id, id)
    );
    create index rm_rule_chains_created on rm_rule_chains (tenant_id, created_at desc);
    create table rm_rule_chain_versions (
      tenant_id text not null,
      chain_id text not null,
      version int not null,
      name text not null,
      node_count int not null,
      chain jsonb not null,
      restored_from int,
      created_by text,
      created_at timestamptz not null,
      primary key (tenant_id, chain_id, version)
    );`,
  async apply(tx, event) {
    const { tenantId, occurredAt: at, actor } = event.metadata;
    switch (event.type) {
      case 'RuleChainCreated': {
        const { chainId, root, chain } = event.data;
        await tx.query(
          `insert into rm_rule_chains (tenant_id, id, name, description, root, latest_version, running_version, node_count, created_at, updated_at)
           values ($1, $2, $3, $4, $5, 1, 1, $6, $7, $7) on conflict do nothing`,
          [tenantId, chainId, chain.name, chain.description, root, chain.nodes.length, at],
        );
        await addVersion(tx, tenantId, chainId, 1, chain, null, actor.id, at);
        return;
      }
      case 'RuleChainSaved': {
        const { chainId, version, chain, restoredFrom, run } = event.data;
        await tx.query(
          `update rm_rule_chains set name = $3, description = $4, latest_version = $5, node_count = $6, updated_at = $7,
             running_version = case when $8 then $5 else running_version end
           where tenant_id = $1 and id = $2`,
          [tenantId, chainId, chain.name, chain.description, version, chain.nodes.length, at, run],
        );
        await addVersion(tx, tenantId, chainId, version, chain, restoredFrom, actor.id, at);
        return;
      }
      case 'RuleChainVersionSwitched':
        await tx.query('update rm_rule_chains set running_version = $3, updated_at = $4 where tenant_id = $1 and id = $2', [
          tenantId,
          event.data.chainId,
          event.data.version,
          at,
        ]);
        return;
      case 'RuleChainDeleted':
        await tx.query('delete from rm_rule_chains where tenant_id = $1 and id = $2', [tenantId, event.data.chainId]);
        await tx.query('delete from rm_rule_chain_versions where tenant_id = $1 and chain_id = $2', [tenantId, event.data.chainId]);
        return;
    }
  },
});
