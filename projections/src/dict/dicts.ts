import type { DictEvent } from '@iot/contracts';
import { projection } from '../projection.ts';

/** Dictionary types and their items, per tenant. */
export const dictsProjection = projection<DictEvent>({
  name: 'dicts',
  handles: ['DictTypeCreated', 'DictTypeUpdated', 'DictTypeDeleted', 'DictItemAdded', 'DictItemUpdated', 'DictItemRemoved'],
  tables: ['rm_dict_types', 'rm_dict_items'],
  schema: `
    create table rm_dict_types (
      id text primary key,
      tenant_id text not null,
      code text not null,
      name text not null,
      status text not null,
      remark text,
      created_at timestamptz not null,
      updated_at timestamptz not null
    );
    create index rm_dict_types_tenant on rm_dict_types (tenant_id, code);
    create table rm_dict_items (
      id text primary key,
      type_id text not null,
      tenant_id text not null,
      label text not null,
      value text not null,
      sort int not null,
      status text not null,
      remark text
    );
    create index rm_dict_items_type on rm_dict_items (type_id, sort);`,
  async apply(tx, event) {
    const at = event.metadata.occurredAt;
    const tenantId = event.metadata.tenantId;
    switch (event.type) {
      case 'DictTypeCreated':
        await tx.query(
          `insert into rm_dict_types (id, tenant_id, code, name, status, remark, created_at, updated_at) values ($1, $2, $3, $4, $5, $6, $7, $7)
           on conflict (id) do nothing`,
          [event.data.typeId, tenantId, event.data.code, event.data.name, event.data.status, event.data.remark, at],
        );
        return;
      case 'DictTypeUpdated':
        await tx.query('update rm_dict_types set code = $2, name = $3, status = $4, remark = $5, updated_at = $6 where id = $1', [
          event.data.typeId,
          event.data.code,
          event.data.name,
          event.data.status,
          event.data.remark,
          at,
        ]);
        return;
      case 'DictTypeDeleted':
        await tx.query('delete from rm_dict_items where type_id = $1', [event.data.typeId]);
        await tx.query('delete from rm_dict_types where id = $1', [event.data.typeId]);
        return;
      case 'DictItemAdded':
      case 'DictItemUpdated':
        await tx.query(
          `insert into rm_dict_items (id, type_id, tenant_id, label, value, sort, status, remark) values ($1, $2, $3, $4, $5, $6, $7, $8)
           on conflict (id) do update set label = excluded.label, value = excluded.value, sort = excluded.sort, status = excluded.status, remark = excluded.remark`,
          [
            event.data.itemId,
            event.data.typeId,
            tenantId,
            event.data.label,
            event.data.value,
            event.data.sort,
            event.data.status,
            event.data.remark,
          ],
        );
        return;
      case 'DictItemRemoved':
        await tx.query('delete from rm_dict_items where id = $1', [event.data.itemId]);
        return;
    }
  },
});
