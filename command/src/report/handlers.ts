import { DomainError, type ReportFields, type ReportRoutes } from '@iot/contracts';
import { callerOf, type Handlers, type RequestContext } from '@iot/contracts/http/handler.ts';
import { newAggregateId } from '../handler.ts';
import { commandContextOf, runCommand } from '../request.ts';
import { assertOwnGroup } from '../group/own.ts';
import { reportDecider, reportStream } from './decide.ts';

/** A report names devices or a group of the caller's tenant, and contacts of it. */
async function checkReport(ctx: RequestContext, report: ReportFields) {
  const { lookups } = ctx.ports;
  const { tenantId } = callerOf(ctx);
  const deviceIds = [...new Set(report.deviceIds)];
  if ((await lookups.devicesOfTenant(tenantId, deviceIds)).length !== deviceIds.length)
    throw new DomainError('NOT_FOUND', { field: 'deviceIds' });
  if (report.groupId) await assertOwnGroup(lookups, tenantId, report.groupId, 'groupId');
  const contactIds = [...new Set(report.contactIds)];
  if ((await lookups.contactsOfTenant(tenantId, contactIds)).length !== contactIds.length)
    throw new DomainError('NOT_FOUND', { field: 'contactIds' });
}

const stream = (ctx: RequestContext, id: string) => reportStream(callerOf(ctx).tenantId, id);

export const reportHandlers: Pick<Handlers<ReportRoutes>, 'report.create' | 'report.update' | 'report.delete'> = {
  async 'report.create'({ body }, ctx) {
    await checkReport(ctx, body);
    const id = newAggregateId(commandContextOf(ctx));
    await runCommand(ctx, reportDecider, stream(ctx, id), { type: 'Create', id, fields: body });
    return { id };
  },
  async 'report.update'({ body }, ctx) {
    const { id, ...fields } = body;
    await checkReport(ctx, fields);
    await runCommand(ctx, reportDecider, stream(ctx, id), { type: 'Update', id, fields });
    return { id };
  },
  async 'report.delete'({ query }, ctx) {
    await runCommand(ctx, reportDecider, stream(ctx, query.id), { type: 'Delete', id: query.id });
    return { id: query.id };
  },
};
