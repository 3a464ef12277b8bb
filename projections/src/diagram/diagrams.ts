import type { DiagramEvent } from '@iot/contracts';
import { projection } from '../projection.ts';

/** Configuration diagrams of each tenant: fields as last saved, widgets as one JSON document. */
export const diagramsProjection = projection<DiagramEvent>({
  name: 'diagrams',
  handles: ['DiagramCreated', 'DiagramSaved', 'DiagramDeleted'],
  tables: ['rm_diagrams'],
  schema: `
    create table rm_diagrams (
      id text primary key,
      tenant_id text not null,
      name text not null,
      remark text,
      background text not null,
      widgets jsonb not null,
      edges jsonb not null default '[]'::jsonb,
      canvas jsonb,
      created_at timestamptz not null,
      updated_at timestamptz not null
    );
    create index rm_diagrams_tenant on rm_diagrams (tenant_id, created_at desc);`,
  migrations: [
    {
      version: 2,
      name: 'edges and canvas settings',
      sql: `alter table rm_diagrams add column if not exists edges jsonb not null default '[]'::jsonb;
        alter table rm_diagrams add column if not exists canvas jsonb;`,
    },
  ],
  async apply(tx, event) {
    const at = event.metadata.occurredAt;
    switch (event.type) {
      case 'DiagramCreated':
      case 'DiagramSaved': {
        const d = event.data;
        await tx.query(
          `insert into rm_diagrams (id, tenant_id, name, remark, background, widgets, edges, canvas, created_at, updated_at)
           values ($1, $2, $3, $4, $5, $6::jsonb, $7::jsonb, $8::jsonb, $9, $9)
           on conflict (id) do update set name = $3, remark = $4, background = $5, widgets = $6::jsonb, edges = $7::jsonb,
             canvas = $8::jsonb, updated_at = $9`,
          [
            d.diagramId,
            event.metadata.tenantId,
            d.name,
            d.remark,
            d.background,
            JSON.stringify(d.widgets),
            JSON.stringify(d.edges ?? []),
            d.canvas ? JSON.stringify(d.canvas) : null,
            at,
          ],
        );
        return;
      }
      case 'DiagramDeleted':
        await tx.query('delete from rm_diagrams where id = $1', [event.data.diagramId]);
        return;
    }
  },
});
