import { describe, expect, it } from 'vitest';
import { schemaVersionOf, upcasters } from './upcasters.ts';

describe('the platform upcasters', () => {
  it('reads a data set published before sharing existed as kept to its own tenant, and leaves a newer one as it is', () => {
    const v1 = { datasetId: 'd1', name: 'Site power', source: { kind: 'statResult', taskId: 't1' }, windowDays: 7, description: null };
    expect(upcasters.MarketDatasetPublished![1]!(v1)).toEqual({ ...v1, sharing: 'internal', sharedWith: [] });
    expect(upcasters.MarketDatasetUpdated![1]!(v1)).toEqual({ ...v1, sharing: 'internal', sharedWith: [] });
    expect(v1).not.toHaveProperty('sharing');
  });

  it('reads a screen link shared before links recorded the sharer’s station as shared for the whole tenant', () => {
    const v1 = { screenId: 's1', shareId: 'l1', tokenHash: 'h', expiresAt: '2026-12-01T00:00:00.000Z' };
    expect(upcasters.ScreenShared![1]!(v1)).toEqual({ ...v1, stationId: null });
    expect(schemaVersionOf('ScreenShared')).toBe(2);
  });

  it('writes each event type at one past its last upcaster', () => {
    expect(schemaVersionOf('MarketDatasetPublished')).toBe(2);
    expect(schemaVersionOf('DeviceRegistered')).toBe(1);
  });
});
