import { valueFits, type ThingFunction } from '@iot/contracts';
import type { TelemetryRow } from '@iot/contracts/ports/timeseries.ts';
import type { Sample } from './payload.ts';

export interface Rejection {
  identifier: string;
  reason: 'unknown identifier' | 'not a property' | 'wrong type or out of range';
}

/** Sets the cells a value is stored in: numbers (and booleans as 0/1, dates as milliseconds) in `value`, the rest as text. */
function setCell(row: TelemetryRow, fn: Extract<ThingFunction, { type: 'property' }>, value: unknown): void {
  switch (fn.dataType.type) {
    case 'bool':
      row.value = value === true || value === 1 ? 1 : 0;
      return;
    case 'date':
      row.value = typeof value === 'number' ? value : Date.parse(value as string);
      return;
    case 'enum':
      if (typeof value === 'number') row.value = value;
      else row.text = String(value);
      return;
    case 'text':
      row.text = value as string;
      return;
    case 'struct':
    case 'array':
      row.text = JSON.stringify(value);
      return;
    default:
      row.value = value as number;
  }
}

/**
 * Checks each value of a sample against the device's thing model (the version it reports against): unknown
 * identifiers, events and services, wrong types and out-of-range values are refused one by one; the rest is kept.
 */
export function validateSample(
  device: { tenantId: string; deviceId: string; productId: string; retentionDays?: number | null },
  model: ReadonlyMap<string, ThingFunction>,
  sample: Sample,
): { rows: TelemetryRow[]; rejected: Rejection[] } {
  const rows: TelemetryRow[] = [];
  const rejected: Rejection[] = [];
  const ts = new Date(sample.ts);
  const values = sample.values;
  // for…in over the parsed object: no [key, value] pair allocated per value.
  for (const identifier in values) {
    if (!Object.hasOwn(values, identifier)) continue;
    const value = values[identifier];
    const fn = model.get(identifier);
    if (!fn) rejected.push({ identifier: identifier.slice(0, 64), reason: 'unknown identifier' });
    else if (fn.type !== 'property') rejected.push({ identifier, reason: 'not a property' });
    else if (!valueFits(fn.dataType, value)) rejected.push({ identifier, reason: 'wrong type or out of range' });
    else {
      // Built in place, one shape for every row: this runs for every value a device sends.
      const row: TelemetryRow = {
        tenantId: device.tenantId,
        deviceId: device.deviceId,
        productId: device.productId,
        variable: identifier,
        ts,
        value: null,
        text: null,
      };
      setCell(row, fn, value);
      if (device.retentionDays) row.retentionDays = device.retentionDays;
      rows.push(row);
    }
  }
  return { rows, rejected };
}
