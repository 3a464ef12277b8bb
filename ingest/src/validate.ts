import { valueFits, type ThingFunction } from '@iot/contracts';
import type { TelemetryRow } from '@iot/contracts/ports/timeseries.ts';
import type { Sample } from './payload.ts';

export interface Rejection {
  identifier: string;
  reason: 'unknown identifier' | 'not a property' | 'wrong type or out of range';
}

/** The row a value is stored as: numbers (and booleans as 0/1, dates as milliseconds) in `value`, the rest as text. */
function cell(fn: Extract<ThingFunction, { type: 'property' }>, value: unknown): Pick<TelemetryRow, 'value' | 'text'> {
  switch (fn.dataType.type) {
    case 'bool':
      return { value: value === true || value === 1 ? 1 : 0, text: null };
    case 'date':
      return { value: typeof value === 'number' ? value : Date.parse(value as string), text: null };
    case 'enum':
      return typeof value === 'number' ? { value, text: null } : { value: null, text: String(value) };
    case 'text':
      return { value: null, text: value as string };
    case 'struct':
    case 'array':
      return { value: null, text: JSON.stringify(value) };
    default:
      return { value: value as number, text: null };
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
  for (const [identifier, value] of Object.entries(sample.values)) {
    const fn = model.get(identifier);
    if (!fn) rejected.push({ identifier: identifier.slice(0, 64), reason: 'unknown identifier' });
    else if (fn.type !== 'property') rejected.push({ identifier, reason: 'not a property' });
    else if (!valueFits(fn.dataType, value)) rejected.push({ identifier, reason: 'wrong type or out of range' });
    else
      rows.push({
        tenantId: device.tenantId,
        deviceId: device.deviceId,
        productId: device.productId,
        variable: identifier,
        ts,
        ...cell(fn, value),
        ...(device.retentionDays ? { retentionDays: device.retentionDays } : {}),
      });
  }
  return { rows, rejected };
}
