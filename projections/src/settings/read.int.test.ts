import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SYSTEM_TENANT, type SettingsEvent } from '@iot/contracts';
import { readModelOf, type ReadModel } from '../../../tests/fixtures/read-model.ts';
import { settingsProjection } from './settings.ts';
import { settingsOfTenants } from './read.ts';

let sut: ReadModel;

beforeAll(async () => {
  sut = await readModelOf(settingsProjection);
  const name = (systemName: string): SettingsEvent => ({ type: 'SystemNameChanged', data: { systemName } });
  await sut.given(settingsProjection, name('Platform'), { tenantId: SYSTEM_TENANT, at: '2026-01-01T00:00:00Z' });
  await sut.given(
    settingsProjection,
    { type: 'SystemLogoChanged', data: { sha256: 'abc', bytes: 10 } },
    { tenantId: SYSTEM_TENANT, at: '2026-01-02T00:00:00Z' },
  );
  await sut.given(settingsProjection, name('Mine'), { tenantId: 't1', at: '2026-01-03T00:00:00Z' });
});
afterAll(async () => sut?.drop());

describe('the settings read module', () => {
  it('gives the settings of the tenants that set any, what they did not set as null', async () => {
    const records = await settingsOfTenants(sut.db, ['t1', SYSTEM_TENANT, 't2']);
    expect(records.sort((a, b) => a.tenantId.localeCompare(b.tenantId))).toEqual([
      { tenantId: SYSTEM_TENANT, systemName: 'Platform', logoSha256: 'abc', updatedAt: new Date('2026-01-02T00:00:00Z') },
      { tenantId: 't1', systemName: 'Mine', logoSha256: null, updatedAt: new Date('2026-01-03T00:00:00Z') },
    ]);
    expect(await settingsOfTenants(sut.db, ['t2'])).toEqual([]);
  });
});
