import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routes } from '@iot/contracts';
import type { RouteSpec } from '@iot/contracts/http/route.ts';
import { startTestPlatform, TEST_ADMIN_PASSWORD, type TestPlatform } from '../harness/platform.ts';

const table = Object.entries(routes as Record<string, RouteSpec>);
const pathOf = (spec: RouteSpec) => spec.path.replace(/:(\w+)/g, 'x');
/** The lists: routes whose query takes `sort`. */
const lists = table.filter(
  ([, spec]) => spec.method === 'GET' && spec.query && 'shape' in spec.query && 'sort' in (spec.query as any).shape,
);

/** Issue 9 (medium): bad input answers 400 in the envelope, never 500, and stores nothing. */
describe('bad input on every route of the table', () => {
  let sut: TestPlatform;
  let token: string;
  let system: string;
  /** platform: routes belong to the system administrator, the rest to a tenant's. */
  const tokenFor = (spec: RouteSpec) => (spec.permission.startsWith('platform:') ? system : token);
  beforeAll(async () => {
    sut = await startTestPlatform();
    await sut.seedTenant({ id: 'bad', name: 'badCo', adminUsername: 'badCo', adminPassword: 'Bad#pw1234' });
    token = await sut.login('badCo', 'Bad#pw1234');
    system = await sut.login('admin', TEST_ADMIN_PASSWORD);
  });
  afterAll(async () => sut?.stop());

  const events = async () => (await sut.db.pool.query<{ n: number }>('select count(*)::int as n from es_events')).rows[0]!.n;

  it.each(['\u0000', '\uD800', '\uDC00x'])('refuses %j in any string of any body or query with 400, storing nothing', async (bad) => {
    const before = await events();
    for (const [name, spec] of table) {
      if (spec.produces || spec.consumes) continue;
      const field = { value: `a${bad}b`, nested: [{ deep: `c${bad}` }] };
      const r =
        spec.method === 'GET' || spec.method === 'DELETE'
          ? await sut.call(spec.method, pathOf(spec), { token: tokenFor(spec), query: { value: `a${bad}b` } })
          : await sut.call(spec.method, pathOf(spec), { token: tokenFor(spec), body: field });
      expect({ name, status: r.status, code: r.json?.code }).toEqual({ name, status: 400, code: 400 });
    }
    expect(await events()).toBe(before);
  });

  it('refuses a NUL in the login account and a lone surrogate in a username, naming the field', async () => {
    const login = await sut.call('POST', '/api/auth/login', { body: { account: 'bad\u0000Co', password: 'x', agreement: true } });
    expect(login.status).toBe(400);
    expect(login.json!.data.fields[0].field).toBe('body.account');
    const user = await sut.call('POST', '/api/auth/user', {
      token,
      body: {
        username: 'ab\uD83D',
        sex: 'male',
        email: 'a@b.test',
        phone: '13800000003',
        roleIds: ['x'],
        status: 'enabled',
        password: 'Pw#123456',
      },
    });
    expect(user.status).toBe(400);
    expect(user.json!.data.fields[0].field).toBe('body.username');
  });

  it.each(['__proto__', 'constructor', 'toString'])(`answers sort=%s on every list with 400 (${lists.length} lists)`, async (sort) => {
    expect(lists.length).toBeGreaterThanOrEqual(8);
    for (const [name, spec] of lists) {
      const r = await sut.call('GET', pathOf(spec), { token: tokenFor(spec), query: { sort } });
      expect({ name, status: r.status, error: r.json?.data?.error }).toEqual({ name, status: 400, error: 'VALIDATION' });
    }
  });

  it('refuses a field a route does not declare, on every route of the table, naming it; stationId and timestamp pass', async () => {
    const before = await events();
    const faults: string[] = [];
    for (const [name, spec] of table) {
      if (spec.produces || spec.consumes) continue;
      const query = spec.method === 'GET' || spec.method === 'DELETE';
      const r = query
        ? await sut.call(spec.method, pathOf(spec), {
            token: tokenFor(spec),
            query: { zzUndeclared: '1', timestamp: '1', stationId: 'g1' },
          })
        : await sut.call(spec.method, pathOf(spec), { token: tokenFor(spec), body: { zzUndeclared: 'x' } });
      const fields = ((r.json?.data?.fields ?? []) as Array<{ field: string }>).map((f) => f.field);
      const expected = query ? 'querystring.zzUndeclared' : 'body.zzUndeclared';
      if (r.status !== 400 || !fields.includes(expected) || fields.some((f) => /timestamp|stationId/.test(f)))
        faults.push(`${name}: ${r.status} ${fields.join(',')}`);
    }
    expect(faults).toEqual([]);
    expect(await events()).toBe(before);
  });

  it('answers oversized headers with 431 in the envelope', async () => {
    const response = await fetch(`${sut.platform.url!.replace('localhost', '127.0.0.1')}/api/auth/user/currentUser`, {
      headers: { 'x-padding': 'x'.repeat(64 * 1024) },
    });
    expect(response.status).toBe(431);
    expect(await response.json()).toMatchObject({ code: 431, data: { error: 'HEADERS_TOO_LARGE' } });
  });

  it('sends security headers, and no-store on API answers', async () => {
    const r = await sut.call('GET', '/api/auth/user/currentUser', { token });
    expect(r.headers['x-content-type-options']).toBe('nosniff');
    expect(r.headers['cache-control']).toBe('no-store');
    expect(String(r.headers['content-security-policy'])).toContain("frame-ancestors 'none'");
    expect(r.headers['referrer-policy']).toBe('same-origin');
  });
});
