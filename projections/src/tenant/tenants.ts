import type { StoredEvent } from '@iot/contracts/ports/event-store.ts';
import type { Projection } from '../projection.ts';

/** The tenant list of the system administrator's audit screen. */
export const tenantsProjection: Projection = {
  name: 'tenants',
  handles: ['TenantRegistered', 'TenantApproved', 'TenantRejected', 'TenantStopped', 'TenantStarted'],
  tables: ['rm_tenants'],
  schema: `
    create table rm_tenants (
      id text primary key,
      name text not null,
      contact_name text not null,
      company text not null,
      phone text,
      email text,
      status text not null,
      register_method text not null,
      apply_time timestamptz not null,
      audit_time timestamptz,
      audited_by text,
      reject_reason text,
      admin_user_id text,
      updated_at timestamptz not null
    );
    create index rm_tenants_name on rm_tenants (lower(name));
    create index rm_tenants_status on rm_tenants (status, apply_time desc);`,
  /** Registrations arrive in bursts: consecutive ones go in as one insert; the rest one by one, in order. */
  async applyBatch(tx, events) {
    let registrations: StoredEvent[] = [];
    const flush = async () => {
      if (registrations.length === 0) return;
      await tx.query(
        `insert into rm_tenants (id, name, contact_name, company, phone, email, status, register_method, apply_time, updated_at)
         select r.id, r.name, r.contact_name, r.company, r.phone, r.email, 'underReview', r.method, r.at, r.at
         from jsonb_to_recordset($1::jsonb) as r(id text, name text, contact_name text, company text, phone text, email text, method text, at timestamptz)
         on conflict (id) do nothing`,
        [
          JSON.stringify(
            registrations.map((e) => {
              const d = e.data as Record<string, string | null>;
              return {
                id: d.tenantId,
                name: d.name,
                contact_name: d.contactName,
                company: d.company,
                phone: d.phone,
                email: d.email,
                method: d.method,
                at: e.metadata.occurredAt,
              };
            }),
          ),
        ],
      );
      registrations = [];
    };
    for (const event of events) {
      if (event.type === 'TenantRegistered') {
        registrations.push(event);
        continue;
      }
      await flush();
      await this.apply(tx, event);
    }
    await flush();
  },
  async apply(tx, event) {
    const d = event.data as Record<string, string | null>;
    const at = event.metadata.occurredAt;
    switch (event.type) {
      case 'TenantRegistered':
        await tx.query(
          `insert into rm_tenants (id, name, contact_name, company, phone, email, status, register_method, apply_time, updated_at)
           values ($1, $2, $3, $4, $5, $6, 'underReview', $7, $8, $8) on conflict (id) do nothing`,
          [d.tenantId, d.name, d.contactName, d.company, d.phone, d.email, d.method, at],
        );
        return;
      case 'TenantApproved':
        await tx.query(
          `update rm_tenants set status = 'approved', audit_time = $2, audited_by = $3, admin_user_id = $4, updated_at = $2 where id = $1`,
          [d.tenantId, at, event.metadata.actor.id, d.adminUserId],
        );
        return;
      case 'TenantRejected':
        await tx.query(
          `update rm_tenants set status = 'rejected', audit_time = $2, audited_by = $3, reject_reason = $4, updated_at = $2 where id = $1`,
          [d.tenantId, at, event.metadata.actor.id, d.reason],
        );
        return;
      case 'TenantStopped':
      case 'TenantStarted':
        await tx.query(`update rm_tenants set status = $2, updated_at = $3 where id = $1`, [
          d.tenantId,
          event.type === 'TenantStopped' ? 'stopped' : 'approved',
          at,
        ]);
        return;
    }
  },
};
