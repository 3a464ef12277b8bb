import type { EventStore, StoredEvent } from './port.ts';

/** Turns the data of an event of schema version `n` into version `n + 1`. */
export type Upcaster = (data: Record<string, unknown>) => Record<string, unknown>;

/** Per event type, the upcasters keyed by the version they read (1 upgrades v1 to v2, ...). */
export type UpcasterRegistry = Record<string, Record<number, Upcaster>>;

/** Old event versions are upcast on read, never rewritten (ARCHITECTURE.md "Event store"). */
export function upcast(event: StoredEvent, registry: UpcasterRegistry): StoredEvent {
  const steps = registry[event.type];
  if (!steps) return event;
  let { data } = event;
  let version = event.metadata.schemaVersion;
  while (steps[version]) {
    data = steps[version]!(data);
    version += 1;
  }
  if (version === event.metadata.schemaVersion) return event;
  return { ...event, data, metadata: { ...event.metadata, schemaVersion: version } };
}

/** Wraps a store so that every read hands out events at their newest schema version. */
export function withUpcasting(store: EventStore, registry: UpcasterRegistry): EventStore {
  const all = (events: StoredEvent[]) => events.map((e) => upcast(e, registry));
  return {
    kind: store.kind,
    append: (stream, events, expected) => store.append(stream, events, expected),
    headPosition: () => store.headPosition(),
    health: () => store.health(),
    close: () => store.close(),
    readStream: async (stream, options) => all(await store.readStream(stream, options)),
    readAll: async (options) => all(await store.readAll(options)),
    subscribe: (options) => store.subscribe({ ...options, onEvents: (events) => options.onEvents(all(events)) }),
  };
}
