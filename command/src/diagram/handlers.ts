import { DomainError, type DiagramFields, type DiagramRoutes } from '@iot/contracts';
import { callerOf, type Handlers, type RequestContext } from '@iot/contracts/http/handler.ts';
import { newAggregateId } from '../handler.ts';
import { commandContextOf, runCommand } from '../request.ts';
import { diagramDecider, diagramStream, type DiagramCommand } from './decide.ts';

/** Every device a widget is bound to is the caller's tenant's. */
async function checkBindings(ctx: RequestContext, fields: DiagramFields) {
  const wanted = [...new Set(fields.widgets.flatMap((w) => (w.deviceId ? [w.deviceId] : [])))];
  if (wanted.length === 0) return;
  const found = new Set(await ctx.ports.lookups.devicesOfTenant(callerOf(ctx).tenantId, wanted));
  const missing = wanted.find((id) => !found.has(id));
  if (missing) throw new DomainError('NOT_FOUND', { field: 'deviceId' });
}

const diagramCommand = (ctx: RequestContext, diagramId: string, command: DiagramCommand) =>
  runCommand(ctx, diagramDecider, diagramStream(callerOf(ctx).tenantId, diagramId), command);

/** Configuration diagrams of the operation center (issue 20). */
export const diagramHandlers: Pick<Handlers<DiagramRoutes>, 'diagram.create' | 'diagram.update' | 'diagram.delete'> = {
  async 'diagram.create'({ body }, ctx) {
    await checkBindings(ctx, body);
    const diagramId = newAggregateId(commandContextOf(ctx));
    await diagramCommand(ctx, diagramId, { type: 'CreateDiagram', diagramId, fields: body });
    return { id: diagramId };
  },

  async 'diagram.update'({ body }, ctx) {
    const { id, ...fields } = body;
    await checkBindings(ctx, fields);
    await diagramCommand(ctx, id, { type: 'SaveDiagram', diagramId: id, fields });
    return { id };
  },

  async 'diagram.delete'({ query }, ctx) {
    await diagramCommand(ctx, query.id, { type: 'DeleteDiagram', diagramId: query.id });
    return { id: query.id };
  },
};
