import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routes, type Routes } from '@iot/contracts';
import type { RouteSpec } from '@iot/contracts/http/route.ts';
import { specOf, type RouteArgs, type RouteName } from '../harness/api.ts';
import { startTestPlatform, TEST_ADMIN_PASSWORD, type TestPlatform } from '../harness/platform.ts';
import { nestedJson, operationsOf, queryString, sample, type IdPicker } from './walk.ts';

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
  /** The tenant's own product, device (with its secret) and group: the walk's valid values reach the handlers. */
  const ids: Record<string, string> = {};
  /** platform: routes belong to the system administrator, the rest to a tenant's. */
  const tokenFor = (spec: RouteSpec) => (spec.permission.startsWith('platform:') ? system : token);
  beforeAll(async () => {
    sut = await startTestPlatform();
    await sut.seedTenant({ id: 'bad', name: 'badCo', adminUsername: 'badCo', adminPassword: 'Bad#pw1234' });
    token = await sut.login('badCo', 'Bad#pw1234');
    system = await sut.login('admin', TEST_ADMIN_PASSWORD);
    const ok = (r: { status: number; body: string; json: { data: any } | null }) => {
      expect(r.status, r.body).toBe(200);
      return r.json!.data;
    };
    ids.product = ok(await sut.call('product.create', { token, body: { name: 'Walk', code: 'WALK', type: 'direct' } })).id;
    ok(
      await sut.call('product.defineFunction', {
        token,
        body: {
          productId: ids.product!,
          function: {
            type: 'property',
            name: 'temperature',
            identifier: 'temperature',
            dataType: { type: 'float', min: -40, max: 125, unit: '°C' },
            access: 'rw',
          },
        },
      }),
    );
    const device = ok(await sut.call('device.create', { token, body: { sn: 'WALK-1', name: 'walker', productId: ids.product! } }));
    ids.device = device.id;
    ids.secret = device.secret;
    ids.group = ok(await sut.call('group.create', { token, body: { name: 'Walk site', type: 'office', parentId: null } })).id;
    await sut.platform.runner.catchUp();
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
    const login = await sut.call('auth.login', { body: { account: 'bad\u0000Co', password: 'x', agreement: true } });
    expect(login.status).toBe(400);
    expect(login.json!.data.fields[0].field).toBe('body.account');
    const user = await sut.call('user.create', {
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

  /** Valid values for the walk's other parameters: the tenant's own ids, a range that ends after it begins. */
  const pick: IdPicker = (field, url) => {
    const capability = url.split('/')[3];
    switch (field) {
      case 'id':
        return capability === 'device' || capability === 'gateway' ? ids.device : capability === 'product' ? ids.product : undefined;
      case 'ids':
      case 'deviceId':
      case 'deviceIds':
        return ids.device;
      case 'productId':
        return ids.product;
      case 'groupId':
      case 'parentId':
        return ids.group;
      case 'variables':
      case 'variable':
      case 'identifier':
        return 'temperature';
      case 'from':
        return new Date(Date.now() - 3_600_000).toISOString();
      case 'to':
      case 'at':
        return new Date(Date.now() + 60_000).toISOString();
      case 'timeZone':
        return 'Asia/Shanghai';
      case 'filename':
        return 'devices.csv';
      case 'jobId':
        return 'walk-job-0001';
      default:
        return undefined;
    }
  };

  /** What an attacker puts in one query parameter; `raw` values go on the wire as they are (already percent-encoded). */
  const badValues: Array<{ label: string; value: string; raw?: true }> = [
    { label: 'NUL', value: 'a%00b', raw: true },
    { label: 'half a surrogate pair', value: 'a%ED%A0%80b', raw: true },
    { label: 'overlong NUL', value: 'a%C0%80b', raw: true },
    { label: 'bytes that are not UTF-8', value: '%FF%FE%00', raw: true },
    { label: 'huge number', value: '1e309' },
    { label: 'more digits than any integer', value: '9'.repeat(400) },
    { label: 'huge negative number', value: '-99999999999999999999' },
    { label: '__proto__', value: '__proto__' },
    { label: 'constructor', value: 'constructor' },
    { label: 'over-long string', value: 'x'.repeat(8_000) },
    { label: 'offset beyond ±15:59', value: '2024-01-01T00:00:00+16:00' },
    { label: 'year 0', value: '0000-01-01T00:00:00Z' },
    { label: 'no such day', value: '2024-02-30T10:00:00Z' },
    { label: 'unknown time zone', value: 'Mars/Olympus' },
  ];
  /** What the server reads of a value, or null where no UTF-8 decoder makes text of it. */
  const decoded = (bad: { value: string; raw?: true }) => {
    try {
      return bad.raw ? decodeURIComponent(bad.value) : bad.value;
    } catch {
      return null;
    }
  };
  const failures = () => sut.logLines.filter((l) => l.includes('"level":50'));

  it('answers every bad value in every query parameter of every route: 400 when its schema refuses it, never 5xx', async () => {
    const operations = operationsOf(sut.app.swagger() as never);
    const faults: string[] = [];
    const failedBefore = failures().length;
    let pairs = 0;
    for (const [name, spec] of table) {
      // Every route of the table is in the OpenAPI document, with its query's parameters (a new route is walked as it comes).
      if (!operations.has(name)) faults.push(`${name}: not in the OpenAPI document`);
      const params = (operations.get(name)?.parameters ?? []).filter((p) => p.in === 'query');
      // A delete is given ids of nothing, so that no walk deletes what the next one reads.
      const base = Object.fromEntries(
        params.map((p) => [p.name, spec.method === 'DELETE' ? 'walk_none' : String(sample(p.schema, p.name, spec.path, pick))]),
      );
      // The walk's valid values pass the route's schema: the bad value is the only fault of each request.
      if (params.length > 0 && spec.query && !spec.query.safeParse(base).success) faults.push(`${name}: the walk's base query is refused`);
      for (const param of params) {
        pairs += 1;
        for (const bad of badValues) {
          const url = `${pathOf(spec)}?${queryString({ ...base, [param.name]: bad.value }, bad.raw ? new Set([param.name]) : undefined)}`;
          const r = await sut.call(spec.method, url, { token: tokenFor(spec) });
          const sent = decoded(bad);
          // The route's own schema says whether the value is one it takes (`name=__proto__` is a search like any other).
          const refused =
            bad.label === 'NUL' || (sent !== null && spec.query?.safeParse({ ...base, [param.name]: sent }).success === false);
          const envelope =
            r.json?.code === r.status && typeof r.json.msg === 'string' && (r.status === 200 || typeof r.json.data?.error === 'string');
          const named =
            !refused || (r.json?.data?.fields ?? []).some((f: { field: string }) => `${f.field}.`.startsWith(`querystring.${param.name}.`));
          if (r.status >= 500 || (refused && (r.status !== 400 || !named)) || ((r.status >= 400 || !spec.produces) && !envelope))
            faults.push(`${name} ${param.name}=${bad.label}: ${r.status} ${r.body.slice(0, 160)}`);
        }
      }
    }
    expect(faults).toEqual([]);
    expect(failures().slice(failedBefore)).toEqual([]);
    // The table has well over a hundred route/parameter pairs, each walked.
    expect(pairs).toBeGreaterThan(100);
  }, 600_000);

  it('answers JSON nested 10,000 deep (arrays) or 5,000 deep (objects) on every body route with 400, never 5xx', async () => {
    const faults: string[] = [];
    const failedBefore = failures().length;
    for (const [name, spec] of table) {
      if (spec.consumes || (spec.method !== 'POST' && spec.method !== 'PUT')) continue;
      for (const payload of [nestedJson(10_000, 'array'), nestedJson(5_000, 'object')]) {
        const headers: Record<string, string> = { 'content-type': 'application/json', authentication: tokenFor(spec) };
        const r = await sut.app.inject({ method: spec.method, url: pathOf(spec), headers, payload });
        const body = r.json() as { code: number; data: { error: string } };
        if (r.statusCode !== 400 || body.code !== 400 || body.data.error !== 'BODY_TOO_DEEP')
          faults.push(`${name}: ${r.statusCode} ${r.body.slice(0, 160)}`);
      }
    }
    expect(faults).toEqual([]);
    expect(failures().slice(failedBefore)).toEqual([]);
  });

  it('answers the bad input issue 24 found with 400 and a message that says what is wrong, in zh and en', async () => {
    const inBoth = async <N extends RouteName>(name: N, options: RouteArgs<Routes[N]>) => {
      const zh = await sut.call(name, options);
      const en = await sut.call(name, { ...options, headers: { lang: 'en' } });
      expect({ name, zh: zh.status, en: en.status }).toEqual({ name, zh: 400, en: 400 });
      return { zh: zh.json!, en: en.json! };
    };
    // The body parser's bound holds before any route's schema: the bodies are raw text, sent to each route's path.
    const deep = (name: RouteName) =>
      sut.app.inject({
        method: 'POST',
        url: specOf(name).path,
        headers: { 'content-type': 'application/json' },
        payload: nestedJson(10_000, 'array'),
      });
    for (const name of ['auth.login', 'telemetry.report'] as const) expect((await deep(name)).json().data.error).toBe('BODY_TOO_DEEP');
    const code = await sut.app.inject({
      method: 'POST',
      url: specOf('tenant.sendCode').path,
      headers: { 'content-type': 'application/json', lang: 'en' },
      payload: nestedJson(5_000, 'object'),
    });
    expect(code.json()).toMatchObject({ code: 400, msg: 'The request body is nested too deeply (at most 32 levels)' });

    const credentials = { sn: 'WALK-1', secret: ids.secret };
    const future = await inBoth('telemetry.report', {
      body: { ...credentials, data: [{ ts: Date.UTC(2100, 0, 1), values: { temperature: 20 } }] },
    });
    expect(future.zh.data.error).toBe('TELEMETRY_INVALID');
    expect(future.en.msg).toMatch(/^Invalid readings/);
    expect(future.zh.data.details.reason).toBe('ts out of range');
    const many = await inBoth('telemetry.report', {
      body: { ...credentials, data: Array.from({ length: 1001 }, () => ({ temperature: 20 })) },
    });
    expect(many.zh.data).toMatchObject({ error: 'TELEMETRY_INVALID', details: { reason: 'expected 1 to 1000 samples' } });
    // As over MQTT, the refused message is a dead letter of the device.
    await sut.platform.ingest!.flush();
    const letters = (await sut.call('telemetry.deadLetters', { token, query: { sn: 'WALK-1' } })).json!.data.rows as {
      reason: string;
    }[];
    // Four requests (zh and en of each case), four dead letters, of two reasons.
    expect(letters).toHaveLength(4);
    expect(new Set(letters.map((l) => l.reason)).size).toBe(2);

    const offset = await inBoth('alarm.list', { token, query: { from: '2024-01-01T00:00:00+16:00' } });
    expect(offset.zh.data).toMatchObject({ error: 'VALIDATION', fields: [{ field: 'querystring.from', reason: 'TIME_INVALID' }] });
    expect(offset.en.msg).toBe('Invalid time: ISO 8601 with an offset within ±15:59: querystring.from');
    const history = { id: ids.device!, variables: 'temperature', bucket: '1h', from: pick('from', '')!, to: pick('to', '')! };
    const mars = await inBoth('telemetry.history', { token, query: { ...history, timeZone: 'Mars/Olympus' } });
    expect(mars.en).toMatchObject({
      msg: 'Unknown time zone (a name such as Asia/Shanghai): querystring.timeZone',
      data: { error: 'VALIDATION' },
    });
    // A name in any case is the zone it names.
    expect((await sut.call('telemetry.history', { token, query: { ...history, timeZone: 'asia/shanghai' } })).status).toBe(200);
    const nul = await inBoth('device.list', { token, query: { name: 'a\u0000b' } });
    expect(nul.en.msg).toBe('The text holds a character that cannot be stored (a NUL or an unpaired surrogate): querystring.name');
  });

  it('answers oversized headers with 431 in the envelope', async () => {
    const response = await fetch(`${sut.platform.url!.replace('localhost', '127.0.0.1')}${specOf('auth.currentUser').path}`, {
      headers: { 'x-padding': 'x'.repeat(64 * 1024) },
    });
    expect(response.status).toBe(431);
    expect(await response.json()).toMatchObject({ code: 431, data: { error: 'HEADERS_TOO_LARGE' } });
  });

  it('sends security headers, and no-store on API answers', async () => {
    const r = await sut.call('auth.currentUser', { token });
    expect(r.headers['x-content-type-options']).toBe('nosniff');
    expect(r.headers['cache-control']).toBe('no-store');
    expect(String(r.headers['content-security-policy'])).toContain("frame-ancestors 'none'");
    expect(r.headers['referrer-policy']).toBe('same-origin');
  });
});
