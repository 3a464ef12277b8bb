import type { RuleChainEvent } from '@iot/contracts';
import { projection } from '../projection.ts';

/** Which nodes of which chains have their debug traces on, until when and for which share of their messages. */
export const ruleDebugProjection = projection<RuleChainEvent>({
  name: 'ruleDebug',
  handles: ['RuleNodeDebugSet', 'RuleChainDeleted'],
  tables: ['rm_rule_node_debug'],
  schema: `
    create table rm_rule_node_debug (
      tenant_id text not null,
      chain_id text not null,
      node_id text not null,
      until timestamptz not null,
      sample_rate double precision not null,
      primary key (tenant_id, chain_id, node_id)
    );`,
  async apply(tx, event) {
    const { tenantId, occurredAt } = event.metadata;
    switch (event.type) {
      case 'RuleNodeDebugSet': {
        const { chainId, nodeId, until, sampleRate } = event.data;
        // Off is kept as "until it was switched off", so the panel still shows when the traces stopped.
        await tx.query(
          `insert into rm_rule_node_debug (tenant_id, chain_id, node_id, until, sample_rate) values ($1, $2, $3, $4, $5)
           on conflict (tenant_id, chain_id, node_id) do update set until = excluded.until, sample_rate = excluded.sample_rate`,
          [tenantId, chainId, nodeId, until ?? occurredAt, sampleRate],
        );
        return;
      }
      case 'RuleChainDeleted':
        await tx.query('delete from rm_rule_node_debug where tenant_id = $1 and chain_id = $2', [tenantId, event.data.chainId]);
        return;
    }
  },
});
