import { DomainError, type DeviceRoutes, type TimelineEntry } from '@iot/contracts';
import { callerOf, type Handlers, type RequestContext } from '@iot/contracts/http/handler.ts';
import { categoryOf, type StoredEvent } from '@iot/contracts/ports/event-store.ts';
import { sameValue } from '../decider.ts';
import { loadState } from '../handler.ts';
import { productDecider, productStream } from '../product/decide.ts';
import { deviceDecider, deviceStream } from './decide.ts';
import { evolve, initialState, visibleFields, type DeviceEvent } from './device.ts';

/** The fields an event changed: before and after, by field, as an auditor reads them. */
export function changesOf(before: Record<string, unknown>, after: Record<string, unknown>) {
  return Object.keys({ ...before, ...after })
    .filter((field) => !sameValue(before[field] ?? null, after[field] ?? null))
    .map((field) => ({ field, before: before[field] ?? null, after: after[field] ?? null }));
}

export async function usernames(ctx: RequestContext, ids: string[]): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const rows = await ctx.ports.db.query<{ id: string; username: string }>('select id, username from rm_users where id = any($1)', [ids]);
  return new Map(rows.rows.map((r) => [r.id, r.username]));
}

/** A device's history, newest first: who changed what, with each changed field before and after. */
export async function deviceTimeline(ctx: RequestContext, deviceId: string): Promise<TimelineEntry[]> {
  const history = await ctx.ports.store.readStream(deviceStream(callerOf(ctx).tenantId, deviceId));
  if (history.length === 0) throw new DomainError('NOT_FOUND');
  const names = await usernames(ctx, [...new Set(history.map((e) => e.metadata.actor.id))]);
  let state = initialState;
  const entries: TimelineEntry[] = [];
  for (const event of history) {
    const next = evolve(state, event as unknown as DeviceEvent);
    entries.push({
      version: event.version,
      eventType: event.type,
      occurredAt: event.metadata.occurredAt,
      actorKind: event.metadata.actor.kind,
      actorId: event.metadata.actor.id,
      actorName: names.get(event.metadata.actor.id) ?? null,
      changes: changesOf(state.exists ? visibleFields(state) : {}, visibleFields(next)),
    });
    state = next;
  }
  return entries.reverse();
}

/** Counts and names of a tenant's aggregates, folded from its events up to an instant. */
function foldTenant(events: StoredEvent[], alive: Map<string, { category: string; name: string | null; enabled: boolean }>) {
  for (const event of events) {
    const category = categoryOf(event.streamName);
    const data = event.data as Record<string, unknown>;
    const current = alive.get(event.streamName);
    if (event.type.endsWith('Deleted')) alive.delete(event.streamName);
    else if (event.type.endsWith('Created'))
      alive.set(event.streamName, { category, name: (data.name ?? data.username ?? null) as string | null, enabled: true });
    else if (current) {
      const name = (data.name ?? data.username ?? (data.fields as Record<string, unknown> | undefined)?.name) as string | undefined;
      if (name) current.name = name;
      if (event.type === 'DeviceDisabled' || event.type === 'UserStopped') current.enabled = false;
      if (event.type === 'DeviceEnabled' || event.type === 'UserEnabled') current.enabled = true;
    }
    if (event.type === 'ProductCreated') alive.get(event.streamName)!.name = (data.fields as { name: string }).name;
  }
}

/** Reads of the write side's history: timelines and as-of states, folded from the streams themselves. */
export const historyHandlers: Pick<Handlers<DeviceRoutes>, 'device.timeline' | 'device.asOf' | 'audit.tenantAsOf'> = {
  'device.timeline': ({ query }, ctx) => deviceTimeline(ctx, query.id),

  async 'device.asOf'({ query }, ctx) {
    const { tenantId } = callerOf(ctx);
    const at = new Date(query.at);
    const [device, exists] = await Promise.all([
      loadState(ctx.ports.store, deviceDecider, deviceStream(tenantId, query.id), { toTime: at }),
      ctx.ports.store.readStream(deviceStream(tenantId, query.id), { limit: 1 }),
    ]);
    if (exists.length === 0) throw new DomainError('NOT_FOUND');
    const { state } = device;
    let product = null;
    if (state.exists && state.productId) {
      const p = (await loadState(ctx.ports.store, productDecider, productStream(tenantId, state.productId), { toTime: at })).state;
      if (p.exists)
        product = {
          name: p.fields!.name,
          status: p.deleted ? 'deleted' : p.published ? 'published' : 'unpublished',
          modelVersion: state.modelVersion,
          // The device reports against its bound version; before any publication, the draft of that instant.
          functions: (state.modelVersion > 0 ? p.versions[state.modelVersion - 1] : p.functions) ?? p.functions,
        };
    }
    return {
      at: at.toISOString(),
      version: device.version,
      exists: state.exists && !state.deleted,
      device: state.exists ? visibleFields(state) : null,
      product,
    };
  },

  async 'audit.tenantAsOf'({ query }, ctx) {
    const { tenantId } = callerOf(ctx);
    const at = new Date(query.at);
    const alive = new Map<string, { category: string; name: string | null; enabled: boolean }>();
    let after: string | null = null;
    let events = 0;
    for (;;) {
      const page = await ctx.ports.store.readTenant(tenantId, { toTime: at, after, limit: 5000 });
      events += page.length;
      foldTenant(page, alive);
      if (page.length < 5000) break;
      after = page.at(-1)!.position;
    }
    const of = (category: string) => [...alive.values()].filter((a) => a.category === category);
    const names = (category: string) =>
      of(category)
        .map((a) => a.name ?? '')
        .filter(Boolean)
        .sort()
        .slice(0, 200);
    return {
      at: at.toISOString(),
      events,
      users: of('user').length,
      roles: of('role').length,
      groups: of('group').length,
      products: of('product').length,
      devices: of('device').length,
      enabledDevices: of('device').filter((d) => d.enabled).length,
      names: { users: names('user'), roles: names('role'), groups: names('group'), products: names('product') },
    };
  },
};
