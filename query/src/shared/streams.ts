import type { EventStore, ReadStreamOptions, StoredEventOf } from '@iot/contracts/ports/event-store.ts';

/** An aggregate's stream read as the event union that aggregate appends (a stream holds only its aggregate's events). */
export async function readStreamOf<E extends { type: string; data: object }>(
  store: EventStore,
  stream: string,
  options?: ReadStreamOptions,
): Promise<StoredEventOf<E>[]> {
  // The store hands back JSON payloads; the stream's name (its aggregate) is what says which union wrote them.
  return (await store.readStream(stream, options)) as unknown as StoredEventOf<E>[];
}
