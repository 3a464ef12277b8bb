import type { EventStore, ReadStreamOptions, StoredEvent } from '@iot/contracts/ports/event-store.ts';

/** An aggregate's stream read as the event union that aggregate appends, told by `isOf` (contracts' `isDeviceEvent`...). */
export async function readStreamOf<T extends StoredEvent>(
  store: EventStore,
  stream: string,
  isOf: (event: StoredEvent) => event is T,
  options?: ReadStreamOptions,
): Promise<T[]> {
  return (await store.readStream(stream, options)).filter(isOf);
}
