import type { DiagramEvent } from '@iot/contracts';
import { put, recordProjection, remove } from '../shared/record.ts';

/** Configuration diagrams of each tenant: fields as last saved, widgets as one JSON document. */
export const diagramsProjection = recordProjection<DiagramEvent>({
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
  rows(event) {
    const at = event.metadata.occurredAt;
    switch (event.type) {
      case 'DiagramCreated':
      case 'DiagramSaved': {
        const d = event.data;
        return [
          put('rm_diagrams', {
            id: d.diagramId,
            tenant_id: event.metadata.tenantId,
            name: d.name,
            remark: d.remark,
            background: d.background,
            widgets: d.widgets,
            edges: d.edges ?? [],
            canvas: d.canvas ?? null,
            created_at: at,
            updated_at: at,
          }),
        ];
      }
      case 'DiagramDeleted':
        return [remove('rm_diagrams', { id: event.data.diagramId })];
    }
  },
});
