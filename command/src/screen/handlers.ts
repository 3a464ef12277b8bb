import { createHash, randomBytes } from 'node:crypto';
import { DomainError, type ScreenRoutes, type ScreenWidget } from '@iot/contracts';
import { callerOf, type Handlers, type RequestContext } from '@iot/contracts/http/handler.ts';
import { newAggregateId } from '../handler.ts';
import { commandContextOf, runCommand } from '../request.ts';
import { screenDecider, screenStream, type ScreenCommand } from './decide.ts';

const HOUR_MS = 3_600_000;

/** Every device, statistic task, group and product a widget is bound to is the caller's tenant's. */
async function checkBindings(ctx: RequestContext, widgets: ScreenWidget[]) {
  const { tenantId } = callerOf(ctx);
  const unique = (ids: string[]) => [...new Set(ids)];
  const devices = unique(widgets.flatMap((w) => (w.binding.source === 'device' ? [w.binding.deviceId] : [])));
  const tasks = unique(widgets.flatMap((w) => (w.binding.source === 'stat' ? [w.binding.statTaskId] : [])));
  if (devices.length > 0) {
    const found = new Set(await ctx.ports.lookups.devicesOfTenant(tenantId, devices));
    if (devices.some((id) => !found.has(id))) throw new DomainError('NOT_FOUND', { field: 'deviceId' });
  }
  if (tasks.length > 0) {
    const found = new Set(await ctx.ports.lookups.statTasksOfTenant(tenantId, tasks));
    if (tasks.some((id) => !found.has(id))) throw new DomainError('NOT_FOUND', { field: 'statTaskId' });
  }
  const maps = widgets.flatMap((w) => (w.binding.source === 'map' ? [w.binding] : []));
  for (const groupId of unique(maps.flatMap((b) => (b.groupId ? [b.groupId] : []))))
    if ((await ctx.ports.lookups.groupTypeOf(tenantId, groupId)) === undefined) throw new DomainError('NOT_FOUND', { field: 'groupId' });
  for (const productId of unique(maps.flatMap((b) => (b.productId ? [b.productId] : []))))
    if ((await ctx.ports.lookups.productNodeType(tenantId, productId)) === null) throw new DomainError('NOT_FOUND', { field: 'productId' });
}

const screenCommand = (ctx: RequestContext, screenId: string, command: ScreenCommand) =>
  runCommand(ctx, screenDecider, screenStream(callerOf(ctx).tenantId, screenId), command);

/** The data big screen designer (issue 20): screens, their layouts and their share links. */
export const screenHandlers: Pick<
  Handlers<ScreenRoutes>,
  'screen.create' | 'screen.rename' | 'screen.save' | 'screen.delete' | 'screen.share' | 'screen.unshare'
> = {
  async 'screen.create'({ body }, ctx) {
    await checkBindings(ctx, body.widgets);
    const screenId = newAggregateId(commandContextOf(ctx));
    await screenCommand(ctx, screenId, { type: 'CreateScreen', screenId, name: body.name, widgets: body.widgets });
    return { id: screenId };
  },

  async 'screen.rename'({ body }, ctx) {
    await screenCommand(ctx, body.id, { type: 'RenameScreen', screenId: body.id, name: body.name });
    return { id: body.id };
  },

  async 'screen.save'({ body }, ctx) {
    await checkBindings(ctx, body.widgets);
    await screenCommand(ctx, body.id, { type: 'SaveScreenLayout', screenId: body.id, widgets: body.widgets });
    return { id: body.id };
  },

  async 'screen.delete'({ query }, ctx) {
    await screenCommand(ctx, query.id, { type: 'DeleteScreen', screenId: query.id });
    return { id: query.id };
  },

  /** The link's token is `<shareId>.<secret>`, answered here once; only the secret's SHA-256 is recorded (as device secrets are). */
  async 'screen.share'({ body }, ctx) {
    const now = new Date();
    const shareId = newAggregateId(commandContextOf(ctx));
    const secret = randomBytes(32).toString('base64url');
    await screenCommand(ctx, body.id, {
      type: 'ShareScreen',
      screenId: body.id,
      shareId,
      tokenHash: createHash('sha256').update(secret).digest('hex'),
      expiresAt: new Date(now.getTime() + body.hours * HOUR_MS).toISOString(),
      stationId: callerOf(ctx).stationId,
      now: now.toISOString(),
    });
    return { id: shareId, token: `${shareId}.${secret}` };
  },

  async 'screen.unshare'({ query }, ctx) {
    await screenCommand(ctx, query.id, { type: 'RevokeScreenShare', screenId: query.id, shareId: query.shareId });
    return { id: query.shareId };
  },
};
