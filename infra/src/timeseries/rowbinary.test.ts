import { describe, expect, it } from 'vitest';
import type { TelemetryRow } from './port.ts';
import { decodeRowBinary, encodeRowBinary } from './rowbinary.ts';

describe('RowBinary of telemetry rows', () => {
  it('decodes what it encodes: ids, times before and after 2106, values, text, quality, raw and retention', () => {
    const rows: TelemetryRow[] = [
      {
        tenantId: 't1',
        deviceId: 'd-é',
        productId: 'p',
        variable: 'temperature',
        ts: new Date('2026-11-26T10:00:00.123Z'),
        value: 21.5,
        text: null,
      },
      { tenantId: 't1', deviceId: 'd2', productId: '', variable: 'label', ts: new Date(1), value: null, text: 'x'.repeat(300) + '温度' },
      {
        tenantId: 't2',
        deviceId: 'd3',
        productId: 'p',
        variable: 'v',
        ts: new Date(Date.UTC(2300, 0, 1)),
        value: -0.5,
        text: null,
        quality: 'bad',
        raw: '{"v":-0.5}',
        retentionDays: 30,
      },
    ];
    expect(decodeRowBinary(encodeRowBinary(rows))).toEqual(rows);
  });

  it('encodes a batch once: the same array gives the same bytes without encoding again', () => {
    const rows: TelemetryRow[] = [{ tenantId: 't', deviceId: 'd', productId: 'p', variable: 'v', ts: new Date(5), value: 1, text: null }];
    expect(encodeRowBinary(rows)).toBe(encodeRowBinary(rows));
    expect(encodeRowBinary([...rows])).not.toBe(encodeRowBinary(rows));
  });
});
