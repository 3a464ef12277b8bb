import { DomainError, type StatRoutes, type StatTaskFields } from '@iot/contracts';
import { callerOf, type Handlers, type RequestContext } from '@iot/contracts/http/handler.ts';
import { newAggregateId } from '../handler.ts';
import { productOf } from '../product/handlers.ts';
import { commandContextOf, runCommand } from '../request.ts';
import { statTaskDecider, statTaskStream, type StatTaskCommand } from './decide.ts';

/** A device-data or attribute statistic names a property of its product's thing model. */
async function checkAttribute(ctx: RequestContext, task: StatTaskFields) {
  if (task.dataType === 'alarm' || !task.productId) return;
  const product = await productOf(ctx, task.productId);
  const fn = product.functions.find((f) => f.identifier === task.attribute);
  if (!fn || fn.type !== 'property') throw new DomainError('NOT_A_PROPERTY', { field: 'attribute' });
}

const taskCommand = (ctx: RequestContext, taskId: string, command: StatTaskCommand) =>
  runCommand(ctx, statTaskDecider, statTaskStream(callerOf(ctx).tenantId, taskId), command);

export const statHandlers: Pick<
  Handlers<StatRoutes>,
  'statTask.create' | 'statTask.update' | 'statTask.status' | 'statTask.delete' | 'statTask.backfill' | 'statTask.backfillCancel'
> = {
  async 'statTask.create'({ body }, ctx) {
    await checkAttribute(ctx, body);
    const taskId = newAggregateId(commandContextOf(ctx));
    await taskCommand(ctx, taskId, { type: 'CreateStatTask', taskId, fields: body, enabled: false });
    return { id: taskId };
  },

  async 'statTask.update'({ body }, ctx) {
    const { id, ...fields } = body;
    await checkAttribute(ctx, fields);
    await taskCommand(ctx, id, { type: 'UpdateStatTask', taskId: id, fields });
    return { id };
  },

  async 'statTask.status'({ body }, ctx) {
    await taskCommand(ctx, body.id, { type: 'SetStatTaskStatus', taskId: body.id, status: body.status });
    return { id: body.id };
  },

  async 'statTask.backfill'({ body }, ctx) {
    const backfillId = newAggregateId(commandContextOf(ctx));
    const [from, to] = [new Date(body.from).toISOString(), new Date(body.to).toISOString()];
    await taskCommand(ctx, body.id, { type: 'BackfillStatTask', taskId: body.id, backfillId, from, to });
    return { id: backfillId };
  },

  async 'statTask.backfillCancel'({ body }, ctx) {
    await taskCommand(ctx, body.id, { type: 'CancelStatTaskBackfill', taskId: body.id });
    return { id: body.id };
  },

  async 'statTask.delete'({ query }, ctx) {
    await taskCommand(ctx, query.id, { type: 'DeleteStatTask', taskId: query.id });
    return { id: query.id };
  },
};
