import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppEvent, AppFields } from '@iot/contracts';
import { readModelOf, type ReadModel } from '../../../tests/fixtures/read-model.ts';
import { appsProjection } from './apps.ts';
import { appById, appByKey, appNames, appsPage } from './read.ts';

let sut: ReadModel;
async function app(tenantId: string, appId: string, ownerId: string, fields: Partial<AppFields>, at: string) {
  const event: AppEvent = {
    type: 'AppCreated',
    data: { appId, appKey: `key-${appId}`, ownerId, type: 'server', name: appId, scope: [], sharing: 'private', remark: null, ...fields },
  };
  await sut.given(appsProjection, event, { tenantId, at });
}

beforeAll(async () => {
  sut = await readModelOf(appsProjection);
  await app('t1', 'mine', 'ann', { scope: ['iot:device:list'] }, '2026-01-01T00:00:00Z');
  await app('t1', 'org', 'bob', { sharing: 'organisation', type: 'web' }, '2026-01-02T00:00:00Z');
  await app('t1', 'far', 'cat', { sharing: 'organisation' }, '2026-01-03T00:00:00Z');
  await app('t1', 'all', 'cat', { sharing: 'global', name: 'Everyone' }, '2026-01-04T00:00:00Z');
  await app('t1', 'hidden', 'cat', {}, '2026-01-05T00:00:00Z');
  await app('t2', 'theirs', 'dan', { sharing: 'global' }, '2026-01-06T00:00:00Z');
  const stopped: AppEvent = {
    type: 'AppUpdated',
    data: { appId: 'hidden', type: 'server', name: 'hidden', scope: [], sharing: 'private', remark: 'off', status: 'stopped' },
  };
  await sut.given(appsProjection, stopped, { tenantId: 't1' });
  await sut.given(appsProjection, { type: 'AppSecretRotated', data: { appId: 'mine' } } satisfies AppEvent, { tenantId: 't1' });
});
afterAll(async () => sut?.drop());

describe('the apps read module', () => {
  it('finds an app of a tenant by id and any app by its key, typed as stored', async () => {
    expect(await appById(sut.db, 't1', 'mine')).toMatchObject({
      ownerId: 'ann',
      appKey: 'key-mine',
      scope: ['iot:device:list'],
      status: 'enabled',
    });
    expect((await appById(sut.db, 't1', 'mine'))!.secretRotatedAt).toBeInstanceOf(Date);
    expect(await appById(sut.db, 't1', 'theirs')).toBeNull();
    expect(await appByKey(sut.db, 'key-theirs')).toMatchObject({ id: 'theirs', tenantId: 't2', sharing: 'global' });
    expect((await appByKey(sut.db, 'key-hidden'))!.status).toBe('stopped');
    expect(await appByKey(sut.db, 'key-none')).toBeNull();
  });

  it('pages what a viewer sees: their own, global ones, and organisation ones of owners in their organisation', async () => {
    const ids = async (filter: Parameters<typeof appsPage>[2]) =>
      (await appsPage(sut.db, 't1', filter, { page: 1, pageSize: 20, order: 'asc', sort: 'createdAt' })).rows.map((a) => a.id);
    expect(await ids({})).toEqual(['mine', 'org', 'far', 'all', 'hidden']);
    expect(await ids({ visibleTo: { viewerId: 'ann', organisation: ['bob'] } })).toEqual(['mine', 'org', 'all']);
    expect(await ids({ visibleTo: { viewerId: 'zed', organisation: [] } })).toEqual(['all']);
    expect(await ids({ name: 'EVERY' })).toEqual(['all']);
    expect(await ids({ type: 'web' })).toEqual(['org']);
  });

  it('lists every app’s name oldest first', async () => {
    expect((await appNames(sut.db)).map((a) => `${a.tenantId}/${a.name}`)).toEqual([
      't1/mine',
      't1/org',
      't1/far',
      't1/Everyone',
      't1/hidden',
      't2/theirs',
    ]);
  });
});
