import { DomainError, notifyTemplateCodeScope, type AlarmRoutes } from '@iot/contracts';
import { callerOf, type Handlers, type RequestContext } from '@iot/contracts/http/handler.ts';
import { assertOwnGroup } from '../group/own.ts';
import { newAggregateId } from '../handler.ts';
import { perItemFound } from '../shared/bulk.ts';
import { commandContextOf, runCommand } from '../request.ts';
import { moveClaim, releaseClaims, withClaim } from '../shared/claims.ts';
import {
  contactDecider,
  contactStream,
  notifyConfigDecider,
  notifyConfigStream,
  notifyTemplateDecider,
  notifyTemplateStream,
} from './decide.ts';

/** A configuration names a template and contacts of the caller's tenant, and a group of it. */
async function checkConfig(ctx: RequestContext, config: { templateId: string; contactIds: string[]; groupId: string | null }) {
  const { lookups } = ctx.ports;
  const { tenantId } = callerOf(ctx);
  if (!(await lookups.notifyTemplateExists(tenantId, config.templateId))) throw new DomainError('NOT_FOUND', { field: 'templateId' });
  const contactIds = [...new Set(config.contactIds)];
  if ((await lookups.contactsOfTenant(tenantId, contactIds)).length !== contactIds.length)
    throw new DomainError('NOT_FOUND', { field: 'contactIds' });
  if (config.groupId) await assertOwnGroup(lookups, tenantId, config.groupId, 'groupId');
}

/** Record ids none of which is the caller's tenant's answer NOT_FOUND. */
async function mustOwnRecords(ctx: RequestContext, ids: string[]) {
  if (!(await ctx.ports.lookups.anyNotifyRecordOf(callerOf(ctx).tenantId, ids))) throw new DomainError('NOT_FOUND');
}

/** Whether record `r` of the tenant `$1` is read for the user `$2` (the inbox tables of projections/src/alarm/outbox.ts). */
const readByUser = (r: string) =>
  `(${r}.id <= coalesce((select m.read_through from notify_inbox_marks m where m.tenant_id = $1 and m.user_id = $2), 0)
    or exists (select 1 from notify_inbox_reads x where x.user_id = $2 and x.record_id = ${r}.id))`;

type NotifyWrites =
  | 'contact.create'
  | 'contact.update'
  | 'contact.delete'
  | 'notifyTemplate.create'
  | 'notifyTemplate.update'
  | 'notifyTemplate.delete'
  | 'notifyConfig.create'
  | 'notifyConfig.update'
  | 'notifyConfig.delete'
  | 'notifyRecord.read'
  | 'notifyRecord.retry';

/** Contacts, notification templates (their ID unique in the tenant, by claim) and configurations. */
export const notifyHandlers: Pick<Handlers<AlarmRoutes>, NotifyWrites> = {
  async 'contact.create'({ body }, ctx) {
    const id = newAggregateId(commandContextOf(ctx));
    await runCommand(ctx, contactDecider, contactStream(callerOf(ctx).tenantId, id), { type: 'Create', id, fields: body });
    return { id };
  },
  async 'contact.update'({ body }, ctx) {
    const { id, ...fields } = body;
    await runCommand(ctx, contactDecider, contactStream(callerOf(ctx).tenantId, id), { type: 'Update', id, fields });
    return { id };
  },
  async 'contact.delete'({ query }, ctx) {
    const stream = (id: string) => contactStream(callerOf(ctx).tenantId, id);
    return perItemFound(query.ids, (id) => runCommand(ctx, contactDecider, stream(id), { type: 'Delete', id }), ctx.lang);
  },

  async 'notifyTemplate.create'({ body }, ctx) {
    const { tenantId } = callerOf(ctx);
    const id = newAggregateId(commandContextOf(ctx));
    await withClaim(ctx.ports.db, { scope: notifyTemplateCodeScope(tenantId), key: body.code, owner: id }, 'TEMPLATE_CODE_TAKEN', () =>
      runCommand(ctx, notifyTemplateDecider, notifyTemplateStream(tenantId, id), { type: 'Create', id, fields: body }),
    );
    return { id };
  },
  async 'notifyTemplate.update'({ body }, ctx) {
    const { tenantId } = callerOf(ctx);
    const { id, ...fields } = body;
    await moveClaim(ctx.ports.db, { scope: notifyTemplateCodeScope(tenantId), key: fields.code, owner: id }, 'TEMPLATE_CODE_TAKEN', () =>
      runCommand(ctx, notifyTemplateDecider, notifyTemplateStream(tenantId, id), { type: 'Update', id, fields }),
    );
    return { id };
  },
  async 'notifyTemplate.delete'({ query }, ctx) {
    const { tenantId } = callerOf(ctx);
    return perItemFound(
      query.ids,
      async (id) => {
        if (await ctx.ports.lookups.notifyTemplateInUse(tenantId, id)) throw new DomainError('TEMPLATE_IN_USE');
        await runCommand(ctx, notifyTemplateDecider, notifyTemplateStream(tenantId, id), { type: 'Delete', id });
        await releaseClaims(ctx.ports.db, notifyTemplateCodeScope(tenantId), id);
      },
      ctx.lang,
    );
  },

  async 'notifyConfig.create'({ body }, ctx) {
    await checkConfig(ctx, body);
    const id = newAggregateId(commandContextOf(ctx));
    await runCommand(ctx, notifyConfigDecider, notifyConfigStream(callerOf(ctx).tenantId, id), { type: 'Create', id, fields: body });
    return { id };
  },
  async 'notifyConfig.update'({ body }, ctx) {
    const { id, ...fields } = body;
    await checkConfig(ctx, fields);
    await runCommand(ctx, notifyConfigDecider, notifyConfigStream(callerOf(ctx).tenantId, id), { type: 'Update', id, fields });
    return { id };
  },
  async 'notifyConfig.delete'({ query }, ctx) {
    const stream = (id: string) => notifyConfigStream(callerOf(ctx).tenantId, id);
    return perItemFound(query.ids, (id) => runCommand(ctx, notifyConfigDecider, stream(id), { type: 'Delete', id }), ctx.lang);
  },

  // The outbox is operational state beside the log, not events: reading and resending change only its rows.
  // Read marks are each user's own: user A reading a message leaves it unread for user B.
  async 'notifyRecord.read'({ body }, ctx) {
    const { tenantId, id: userId } = callerOf(ctx);
    const { db } = ctx.ports;
    if (body.ids) {
      const result = await db.query(
        `insert into notify_inbox_reads (record_id, user_id)
         select r.id, $2 from notify_records r where r.tenant_id = $1 and r.send_way = 'inApp' and r.id::text = any($3) and not ${readByUser('r')}
         on conflict do nothing`,
        [tenantId, userId, body.ids],
      );
      if (result.rowCount === 0) await mustOwnRecords(ctx, body.ids);
      return { updated: result.rowCount };
    }
    // All read: one mark at the newest message, the single marks below it no longer needed.
    const result = await db.query<{ updated: number }>(
      `with unread as (
         select r.id from notify_records r where r.tenant_id = $1 and r.send_way = 'inApp' and not ${readByUser('r')}),
       mark as (
         insert into notify_inbox_marks (tenant_id, user_id, read_through) select $1, $2, max(id) from unread having count(*) > 0
         on conflict (tenant_id, user_id) do update set read_through = greatest(notify_inbox_marks.read_through, excluded.read_through)
         returning read_through)
       select (select count(*)::int from unread) as updated, (select count(*) from mark) as marked`,
      [tenantId, userId],
    );
    await db.query(
      `delete from notify_inbox_reads x using notify_inbox_marks m, notify_records r
       where x.user_id = $2 and m.tenant_id = $1 and m.user_id = $2 and r.id = x.record_id and r.tenant_id = $1 and x.record_id <= m.read_through`,
      [tenantId, userId],
    );
    return { updated: result.rows[0]!.updated };
  },

  // Send again: a failed record is tried anew; a sent one is sent once more as a new record beside it (its own
  // history stays: when it went, what carried it); an unsent one is on its way already.
  async 'notifyRecord.retry'({ body }, ctx) {
    const { db } = ctx.ports;
    const { tenantId } = callerOf(ctx);
    const failed = await db.query(
      `update notify_records set status = 'unsent', attempts = 0, next_at = now(), error = null
       where tenant_id = $1 and id::text = any($2) and status = 'failed'`,
      [tenantId, body.ids],
    );
    const sent = await db.query(
      `insert into notify_records (tenant_id, source_key, config_id, alarm_id, ticket_id, sn, group_id, send_way, type, recipient,
         contact_id, contact_name, subject, body, summary)
       select r.tenant_id, r.source_key || '#again:' || gen_random_uuid(), r.config_id, r.alarm_id, r.ticket_id, r.sn, r.group_id,
         r.send_way, r.type, r.recipient, r.contact_id, r.contact_name, r.subject, r.body, r.summary
       from notify_records r where r.tenant_id = $1 and r.id::text = any($2) and r.status = 'sent'`,
      [tenantId, body.ids],
    );
    const updated = failed.rowCount + sent.rowCount;
    if (updated === 0) await mustOwnRecords(ctx, body.ids);
    return { updated };
  },
};
