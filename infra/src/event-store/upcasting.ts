import type { EventStore, StoredEvent } from './port.ts';

import type { Upcaster, UpcasterRegistry } from '@iot/contracts/upcasters.ts';

export type { Upcaster, UpcasterRegistry };

/** Refuses a registry with a version that is not a whole number from 1, a step that is not a function, or a gap. */
export function checkUpcasters(registry: UpcasterRegistry): void {
  for (const [type, steps] of Object.entries(registry)) {
    const versions = Object.keys(steps).map(Number);
    for (const version of versions) {
      if (!Number.isInteger(version) || version < 1)
        throw new Error(`upcaster of ${type}: version ${version} is not a whole number from 1`);
      if (typeof steps[version] !== 'function') throw new Error(`upcaster of ${type} from version ${version} is not a function`);
    }
    versions.sort((a, b) => a - b);
    for (let i = 1; i < versions.length; i++)
      if (versions[i] !== versions[i - 1]! + 1)
        throw new Error(`upcasters of ${type} skip from version ${versions[i - 1]} to ${versions[i]}`);
  }
}

/** Old event versions are upcast on read, never rewritten (ARCHITECTURE.md "Event store"). */
export function upcast(event: StoredEvent, registry: UpcasterRegistry): StoredEvent {
  const steps = registry[event.type];
  if (!steps) return event;
  const stored = event.metadata.schemaVersion;
  let { data } = event;
  let version = stored;
  for (let step = steps[version]; step; step = steps[version]) {
    data = step(data);
    version += 1;
  }
  if (version === stored) return event;
  return { ...event, data, metadata: { ...event.metadata, schemaVersion: version } };
}

/**
 * Wraps a store so that every read (readStream, readAll, subscribe) hands out events at their newest schema
 * version. The composition root wraps the store once: `withUpcasting(await createPostgresEventStore(...), upcasters)`.
 */
export function withUpcasting(store: EventStore, registry: UpcasterRegistry): EventStore {
  checkUpcasters(registry);
  const all = (events: StoredEvent[]) => events.map((e) => upcast(e, registry));
  return {
    kind: store.kind,
    append: (stream, events, expected) => store.append(stream, events, expected),
    appendMany: (appends) => store.appendMany(appends),
    headPosition: (options) => store.headPosition(options),
    health: () => store.health(),
    close: () => store.close(),
    readStream: async (stream, options) => all(await store.readStream(stream, options)),
    readAll: async (options) => all(await store.readAll(options)),
    readTenant: async (tenantId, options) => all(await store.readTenant(tenantId, options)),
    subscribe: (options) => store.subscribe({ ...options, onEvents: (events) => options.onEvents(all(events)) }),
  };
}
