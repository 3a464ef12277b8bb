import type { StoredEventOf } from '../ports/event-store.ts';
import type { TelemetryRow } from '../ports/timeseries.ts';
import type { DeviceEvent } from './events.ts';
import type { ThingFunction } from './thing-model.ts';

/**
 * Desired state (issue 11): what an operator wants a writable property to be, against what the device reports.
 * The command side re-sends what a device does not report yet; the read side shows both.
 */
export type WritableProperty = Extract<ThingFunction, { type: 'property' }>;

/** The properties of a thing model a desired value may be set for. */
export const writableProperties = (functions: ThingFunction[]): WritableProperty[] =>
  functions.filter((f): f is WritableProperty => f.type === 'property' && f.access === 'rw');

/** The newest desired value of each property in a device's events, with when and by whom it was set. */
export function desiredValues(history: StoredEventOf<DeviceEvent>[]) {
  const desired = new Map<string, { value: unknown; at: string; actorId: string }>();
  for (const event of history)
    if (event.type === 'DeviceDesiredSet')
      desired.set(event.data.identifier, { value: event.data.value, at: event.metadata.occurredAt, actorId: event.metadata.actor.id });
  return desired;
}

/** Whether a stored row holds the desired value (booleans are stored as 0/1, dates as milliseconds, structs as JSON). */
export function reportsDesired(desired: unknown, row: Pick<TelemetryRow, 'value' | 'text'>): boolean {
  const wanted = typeof desired === 'boolean' ? (desired ? 1 : 0) : desired;
  if (typeof wanted === 'number') return row.value === wanted;
  if (typeof wanted === 'string') return row.text === wanted || (row.value !== null && Date.parse(wanted) === row.value);
  return row.text === JSON.stringify(wanted);
}
