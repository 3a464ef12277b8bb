import type { DeviceRoutes } from '@iot/contracts';
import { callerOf, type Handlers } from '@iot/contracts/http/handler.ts';
import { categoryOf, type StoredEvent } from '@iot/contracts/ports/event-store.ts';

const text = (value: unknown): string | null => (typeof value === 'string' ? value : null);
/** The name a product's events carry in their `fields`. */
const fieldsName = (data: Record<string, unknown>): string | null => {
  const fields = data.fields;
  return typeof fields === 'object' && fields !== null && 'name' in fields ? text(fields.name) : null;
};

/** Counts and names of a tenant's aggregates, folded from its events up to an instant. */
function foldTenant(events: StoredEvent[], alive: Map<string, { category: string; name: string | null; enabled: boolean }>) {
  for (const event of events) {
    const category = categoryOf(event.streamName);
    const data = event.data;
    const current = alive.get(event.streamName);
    if (event.type.endsWith('Deleted')) alive.delete(event.streamName);
    else if (event.type.endsWith('Created'))
      alive.set(event.streamName, { category, name: text(data.name) ?? text(data.username), enabled: true });
    else if (current) {
      const name = text(data.name) ?? text(data.username) ?? fieldsName(data);
      if (name) current.name = name;
      if (event.type === 'DeviceDisabled' || event.type === 'UserStopped') current.enabled = false;
      if (event.type === 'DeviceEnabled' || event.type === 'UserEnabled') current.enabled = true;
    }
    if (event.type === 'ProductCreated') alive.get(event.streamName)!.name = fieldsName(data);
  }
}

/** The tenant as an auditor replays it: what it held at an instant, from every event of it up to then. */
export const tenantAsOfHandlers: Pick<Handlers<DeviceRoutes>, 'audit.tenantAsOf'> = {
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
