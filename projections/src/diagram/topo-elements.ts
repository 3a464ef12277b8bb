import type { TopoElementEvent } from '@iot/contracts';
import { projection } from '../projection.ts';

/** Topo elements of each tenant (spec §3): the diagram palette's own pieces, as last set. */
export const topoElementsProjection = projection<TopoElementEvent>({
  name: 'topoElements',
  handles: ['TopoElementCreated', 'TopoElementUpdated', 'TopoElementDeleted'],
  tables: ['rm_topo_elements'],
  schema: `
    create table rm_topo_elements (
      id text primary key,
      tenant_id text not null,
      name text not null,
      width integer not null,
      height integer not null,
      remark text,
      image_file_id text,
      created_at timestamptz not null,
      updated_at timestamptz not null
    );
    create index rm_topo_elements_tenant on rm_topo_elements (tenant_id, created_at desc);`,
  async apply(tx, event) {
    const at = event.metadata.occurredAt;
    switch (event.type) {
      case 'TopoElementCreated':
      case 'TopoElementUpdated': {
        const e = event.data;
        await tx.query(
          `insert into rm_topo_elements (id, tenant_id, name, width, height, remark, image_file_id, created_at, updated_at)
           values ($1, $2, $3, $4, $5, $6, $7, $8, $8)
           on conflict (id) do update set name = $3, width = $4, height = $5, remark = $6, image_file_id = $7, updated_at = $8`,
          [e.elementId, event.metadata.tenantId, e.name, e.width, e.height, e.remark, e.imageFileId, at],
        );
        return;
      }
      case 'TopoElementDeleted':
        await tx.query('delete from rm_topo_elements where id = $1', [event.data.elementId]);
        return;
    }
  },
});
