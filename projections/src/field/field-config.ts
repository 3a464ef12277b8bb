import type { FieldConfigEvent } from '@iot/contracts';
import { projection } from '../projection.ts';

/** Each site's on-site parameters and each tenant's custom field definitions, as the field configuration screen reads them. */
export const fieldConfigProjection = projection<FieldConfigEvent>({
  name: 'fieldConfig',
  handles: ['FieldSiteConfigured', 'FieldDefined', 'FieldDefinitionRemoved'],
  tables: ['rm_field_sites', 'rm_field_definitions'],
  schema: `
    create table rm_field_sites (
      tenant_id text not null,
      group_id text not null,
      commissioning_date text,
      rated_capacity_kw double precision,
      address text not null,
      contacts jsonb not null,
      custom jsonb not null,
      updated_at timestamptz not null,
      primary key (tenant_id, group_id)
    );
    create table rm_field_definitions (
      tenant_id text not null,
      key text not null,
      label_zh text not null,
      label_en text not null,
      type text not null,
      required boolean not null,
      position bigint not null,
      primary key (tenant_id, key)
    );`,
  async apply(tx, event) {
    const tenantId = event.metadata.tenantId;
    switch (event.type) {
      case 'FieldSiteConfigured': {
        const d = event.data;
        await tx.query(
          `insert into rm_field_sites (tenant_id, group_id, commissioning_date, rated_capacity_kw, address, contacts, custom, updated_at)
           values ($1, $2, $3, $4, $5, $6, $7, $8)
           on conflict (tenant_id, group_id) do update set commissioning_date = $3, rated_capacity_kw = $4, address = $5,
             contacts = $6, custom = $7, updated_at = $8`,
          [
            tenantId,
            d.groupId,
            d.commissioningDate,
            d.ratedCapacityKw,
            d.address,
            JSON.stringify(d.contacts),
            JSON.stringify(d.custom),
            event.metadata.occurredAt,
          ],
        );
        return;
      }
      case 'FieldDefined': {
        const d = event.data;
        await tx.query(
          `insert into rm_field_definitions (tenant_id, key, label_zh, label_en, type, required, position)
           values ($1, $2, $3, $4, $5, $6, (select coalesce(max(position), 0) + 1 from rm_field_definitions where tenant_id = $1))
           on conflict (tenant_id, key) do update set label_zh = $3, label_en = $4, type = $5, required = $6`,
          [tenantId, d.key, d.labelZh, d.labelEn, d.type, d.required],
        );
        return;
      }
      case 'FieldDefinitionRemoved':
        await tx.query('delete from rm_field_definitions where tenant_id = $1 and key = $2', [tenantId, event.data.key]);
        return;
    }
  },
});
