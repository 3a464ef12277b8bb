import type { TopoElementEvent } from '@iot/contracts';
import { put, recordProjection, remove } from '../shared/record.ts';

/** Topo elements of each tenant (spec §3): the diagram palette's own pieces, as last set. */
export const topoElementsProjection = recordProjection<TopoElementEvent>({
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
  rows(event) {
    switch (event.type) {
      case 'TopoElementCreated':
      case 'TopoElementUpdated': {
        const e = event.data;
        const at = event.metadata.occurredAt;
        return [
          put('rm_topo_elements', {
            id: e.elementId,
            tenant_id: event.metadata.tenantId,
            name: e.name,
            width: e.width,
            height: e.height,
            remark: e.remark,
            image_file_id: e.imageFileId,
            created_at: at,
            updated_at: at,
          }),
        ];
      }
      case 'TopoElementDeleted':
        return [remove('rm_topo_elements', { id: event.data.elementId })];
    }
  },
});
