import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ok, refusal } from '../harness/api.ts';
import { startTestPlatform, type TestPlatform } from '../harness/platform.ts';

/**
 * The data market on the embedded engines (issue 20): a group's variables published as a data set, read by a
 * subscribed app with its app token (each call counted, concurrent calls too), refused to an app without a
 * subscription and after a revocation, and invisible to another tenant.
 */
let sut: TestPlatform;
let token: string;
let groupId: string;
let deviceId: string;

const appOf = async (name: string, owner = token) => {
  const created = ok(
    await sut.call('app.create', {
      token: owner,
      body: { type: 'server', name, scope: ['operation:dataMarket:data'], sharing: 'private' },
    }),
  );
  const appToken = ok(await sut.call('app.token', { body: { appKey: created.appKey, appSecret: created.appSecret } })).token;
  return { id: created.id, token: appToken };
};

beforeAll(async () => {
  sut = await startTestPlatform();
  await sut.seedTenant({ id: 'whiskey', name: 'whiskeyCo', adminUsername: 'whiskeyAdmin', adminPassword: 'Whiskey#pw1' });
  await sut.seedTenant({ id: 'xray', name: 'xrayCo', adminUsername: 'xrayAdmin', adminPassword: 'Xray#pw1' });
  await sut.seedTenant({ id: 'yankee', name: 'yankeeCo', adminUsername: 'yankeeAdmin', adminPassword: 'Yankee#pw1' });
  token = await sut.login('whiskeyAdmin', 'Whiskey#pw1');
  const productId = ok(await sut.call('product.create', { token, body: { name: 'Meter', code: 'MKT', type: 'direct' } })).id;
  const fn = { type: 'property', name: 'Power', identifier: 'power', dataType: { type: 'float', min: 0, max: 1e6, unit: 'kW' } };
  ok(await sut.call('product.defineFunction', { token, body: { productId, function: fn } }));
  ok(await sut.call('product.publish', { token, body: { id: productId } }));
  groupId = ok(await sut.call('group.create', { token, body: { name: 'Site A', type: 'office' } })).id;
  deviceId = ok(await sut.call('device.create', { token, body: { sn: 'MKT-1', name: 'meter', productId, groupId } })).id;
  const hour = 3_600_000;
  // Three hours in one day of the tenant's zone (Asia/Shanghai, UTC+8): the daily data sets below sum them as one row.
  const dayOf = (t: number) => Math.floor((t + 8 * hour) / (24 * hour)) * 24 * hour - 8 * hour;
  const latest = Math.floor(Date.now() / hour) * hour - 3 * hour;
  const start = dayOf(latest) === dayOf(latest + 2 * hour) ? latest : dayOf(latest + 2 * hour) - 3 * hour;
  await sut.platform.timeseries!.insertTelemetry(
    [0, 1, 2].map((h) => ({
      tenantId: 'whiskey',
      deviceId,
      variable: 'power',
      ts: new Date(start + h * hour + 60_000),
      value: 10 * (h + 1),
      text: null,
    })),
  );
  await sut.platform.runner.catchUp();
}, 120_000);
afterAll(async () => sut?.stop());

describe('data market', () => {
  it('serves a published data set to a subscribed app, counts every call, and refuses it after a revocation', async () => {
    const source = { kind: 'deviceData' as const, groupId, variables: ['power'], fn: 'avg' as const, cycle: '1h' as const };
    const { id: datasetId } = ok(await sut.call('market.publish', { token, body: { name: 'Site power', source, windowDays: 1 } }));
    const subscriber = await appOf('Energy portal');
    const stranger = await appOf('Other app');

    expect(refusal(await sut.call('market.data', { token: stranger.token, query: { datasetId } }))).toBe('NOT_SUBSCRIBED');
    const { id: subscriptionId } = ok(await sut.call('market.subscribe', { token, body: { datasetId, appId: subscriber.id } }));
    expect(refusal(await sut.call('market.subscribe', { token, body: { datasetId, appId: subscriber.id } }))).toBe('CONFLICT');

    const data = ok(await sut.call('market.data', { token: subscriber.token, query: { datasetId } }));
    expect(data.columns).toEqual(['time', 'deviceId', 'sn', 'power']);
    expect(data.rows.map((r) => r.slice(1))).toEqual([
      [deviceId, 'MKT-1', 10],
      [deviceId, 'MKT-1', 20],
      [deviceId, 'MKT-1', 30],
    ]);
    // A user, even the administrator, reads no data set here: the endpoint is the apps'.
    expect(refusal(await sut.call('market.data', { token, query: { datasetId } }))).toBe('NOT_SUBSCRIBED');

    const answers = await Promise.all(
      Array.from({ length: 8 }, () => sut.call('market.data', { token: subscriber.token, query: { datasetId } })),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(8).fill(200));
    await sut.platform.runner.catchUp();
    const listed = ok(await sut.call('market.subscriptions', { token, query: {} }));
    expect(listed.rows).toEqual([
      expect.objectContaining({ id: subscriptionId, datasetName: 'Site power', appName: 'Energy portal', status: 'active', calls: 9 }),
    ]);
    expect(ok(await sut.call('market.datasets', { token, query: {} })).rows).toEqual([
      expect.objectContaining({ id: datasetId, subscribers: 1, windowDays: 1 }),
    ]);

    ok(await sut.call('market.revoke', { token, body: { id: subscriptionId } }));
    expect(refusal(await sut.call('market.data', { token: subscriber.token, query: { datasetId } }))).toBe('NOT_SUBSCRIBED');
    expect(ok(await sut.call('market.subscriptions', { token, query: { status: 'revoked' } })).rows.map((r) => r.calls)).toEqual([9]);
  });

  it("shows another tenant nothing, and lets it subscribe none of its apps to this tenant's data sets", async () => {
    const source = { kind: 'deviceData' as const, groupId, variables: ['power'], fn: 'max' as const, cycle: '1d' as const };
    const { id: datasetId } = ok(await sut.call('market.publish', { token, body: { name: 'Daily peak', source } }));
    const other = await sut.login('xrayAdmin', 'Xray#pw1');
    expect(ok(await sut.call('market.datasets', { token: other, query: {} })).rows).toEqual([]);
    const theirs = ok(
      await sut.call('app.create', {
        token: other,
        body: { type: 'server', name: 'X', scope: ['operation:dataMarket:data'], sharing: 'private' },
      }),
    );
    expect(refusal(await sut.call('market.subscribe', { token: other, body: { datasetId, appId: theirs.id } }))).toBe('NOT_FOUND');
    expect(refusal(await sut.call('market.publish', { token: other, body: { name: 'Stolen', source } }))).toBe('NOT_FOUND');
    const theirToken = ok(await sut.call('app.token', { body: { appKey: theirs.appKey, appSecret: theirs.appSecret } })).token;
    expect(refusal(await sut.call('market.data', { token: theirToken, query: { datasetId } }))).toBe('NOT_FOUND');
  });

  it('shares a data set with chosen tenants, then with every tenant, and ends a subscriber tenant’s reads when it stops sharing', async () => {
    const source = { kind: 'deviceData' as const, groupId, variables: ['power'], fn: 'sum' as const, cycle: '1d' as const };
    const body = (more: Record<string, unknown>) => ({ name: 'Shared power', source, windowDays: 1, ...more });
    expect(refusal(await sut.call('market.publish', { token, body: body({ sharing: 'chosen' }) }))).toBe('VALIDATION');
    expect(refusal(await sut.call('market.publish', { token, body: body({ sharing: 'chosen', sharedWith: ['nobody'] }) }))).toBe(
      'VALIDATION',
    );
    expect(refusal(await sut.call('market.publish', { token, body: body({ sharedWith: ['xray'] }) }))).toBe('VALIDATION');
    const { id: datasetId } = ok(await sut.call('market.publish', { token, body: body({ sharing: 'chosen', sharedWith: ['xray'] }) }));
    await sut.platform.runner.catchUp();
    // The event is written at the payload's new schema version (version 1 had no sharing, and is upcast on read).
    const [published] = await sut.platform.context.store.readStream(`marketDataset-whiskey.${datasetId}`);
    expect(published).toMatchObject({ type: 'MarketDatasetPublished', data: { sharing: 'chosen' }, metadata: { schemaVersion: 2 } });

    const xray = await sut.login('xrayAdmin', 'Xray#pw1');
    const yankee = await sut.login('yankeeAdmin', 'Yankee#pw1');
    expect(ok(await sut.call('market.shared', { token: xray, query: {} })).rows).toEqual([
      expect.objectContaining({ id: datasetId, publisherTenantId: 'whiskey', publisherName: 'whiskeyCo', sharing: 'chosen' }),
    ]);
    expect(ok(await sut.call('market.shared', { token: yankee, query: {} })).rows).toEqual([]);
    // The publisher does not see its own data sets as shared with it.
    expect(ok(await sut.call('market.shared', { token, query: {} })).rows).toEqual([]);

    const xrayApp = await appOf('Xray portal', xray);
    const yankeeApp = await appOf('Yankee portal', yankee);
    const publisherTenantId = 'whiskey';
    const subscribe = (owner: string, appId: string) =>
      sut.call('market.subscribe', { token: owner, body: { datasetId, appId, publisherTenantId } });
    expect(refusal(await subscribe(yankee, yankeeApp.id))).toBe('NOT_FOUND');
    const { id: subscriptionId } = ok(await subscribe(xray, xrayApp.id));
    await sut.platform.runner.catchUp();

    // The subscriber reads the publisher's data, computed in the publisher's tenant.
    const data = ok(await sut.call('market.data', { token: xrayApp.token, query: { datasetId } }));
    expect(data.columns).toEqual(['time', 'deviceId', 'sn', 'power']);
    expect(data.rows.map((r) => r.slice(1))).toEqual([[deviceId, 'MKT-1', 60]]);
    // Both sides see the subscription; each call is counted for the subscriber.
    const expected = expect.objectContaining({ id: subscriptionId, subscriberTenantId: 'xray', publisherTenantId, calls: 1 });
    expect(ok(await sut.call('market.subscriptions', { token: xray, query: {} })).rows).toEqual([expected]);
    expect(ok(await sut.call('market.subscriptions', { token, query: { datasetId } })).rows).toEqual([expected]);
    expect(ok(await sut.call('market.subscriptions', { token: yankee, query: {} })).rows).toEqual([]);

    // Shared with every tenant: the third one sees it and subscribes.
    ok(await sut.call('market.update', { token, body: { id: datasetId, ...body({ sharing: 'global' }) } }));
    await sut.platform.runner.catchUp();
    expect(ok(await sut.call('market.shared', { token: yankee, query: {} })).rows.map((r) => r.id)).toEqual([datasetId]);
    ok(await subscribe(yankee, yankeeApp.id));
    await sut.platform.runner.catchUp();
    expect(ok(await sut.call('market.data', { token: yankeeApp.token, query: { datasetId } })).rows).toHaveLength(1);

    // Kept to the publisher again: the other tenants' apps are refused, and the data set leaves their lists.
    ok(await sut.call('market.update', { token, body: { id: datasetId, ...body({ sharing: 'internal' }) } }));
    await sut.platform.runner.catchUp();
    expect(refusal(await sut.call('market.data', { token: xrayApp.token, query: { datasetId } }))).toBe('NOT_SUBSCRIBED');
    expect(refusal(await sut.call('market.data', { token: yankeeApp.token, query: { datasetId } }))).toBe('NOT_SUBSCRIBED');
    expect(ok(await sut.call('market.shared', { token: xray, query: {} })).rows).toEqual([]);
  });
});
