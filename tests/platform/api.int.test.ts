import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routes } from '@iot/contracts';
import type { RouteSpec } from '@iot/contracts/http/route.ts';
import { registerAccessControl } from '@iot/infra/http/auth.ts';
import { specOf } from '../harness/api.ts';
import { startTestPlatform, TEST_ADMIN_PASSWORD, type TestPlatform } from '../harness/platform.ts';

describe('API skeleton', () => {
  let t: TestPlatform;
  beforeAll(async () => {
    t = await startTestPlatform();
  });
  afterAll(async () => t?.stop());

  it('reports each engine’s state at /health', async () => {
    const health = await t.api('GET', '/health');
    expect(health.status).toBe(200);
    const names = health.body.data.engines.map((e: { name: string }) => e.name);
    expect(names).toEqual(expect.arrayContaining(['postgres', 'eventstore:postgres', 'timeseries:chdb', 'bus:in-process', 'mqtt:aedes']));
    expect(health.body.data.engines.every((e: { ok: boolean }) => e.ok)).toBe(true);
  });

  it('exposes Prometheus metrics with projection lag', async () => {
    await t.login('admin', TEST_ADMIN_PASSWORD);
    const metrics = await t.api('GET', '/metrics');
    expect(metrics.status).toBe(200);
    expect(metrics.body).toContain('projection_lag_seconds_bucket');
    expect(metrics.body).toContain('process_cpu_user_seconds_total');
  });

  it('serves an OpenAPI document of the /api routes with their schemas', async () => {
    const docs = await t.api('GET', '/docs/json');
    expect(docs.status).toBe(200);
    expect(docs.body.openapi).toMatch(/^3\./);
    const login = docs.body.paths[specOf('auth.login').path].post;
    expect(login.requestBody.content['application/json'].schema.properties).toHaveProperty('account');
  });

  it('documents every route of the table with its errors, and every $ref it makes resolves', async () => {
    const docs = (await t.api('GET', '/docs/json')).body;
    for (const spec of Object.values(routes as Record<string, RouteSpec>)) {
      const operation = docs.paths[spec.path.replace(/:(\w+)/g, '{$1}')]?.[spec.method.toLowerCase()];
      expect(operation, `${spec.method} ${spec.path}`).toBeDefined();
      expect(Object.keys(operation.responses)).toEqual(expect.arrayContaining(['400', '401', '403', '500']));
    }
    const refs = [...JSON.stringify(docs).matchAll(/"\$ref":"#\/components\/schemas\/([^"]+)"/g)].map((m) => m[1]!);
    for (const ref of new Set(refs)) expect(docs.components?.schemas?.[ref], ref).toBeDefined();
  });

  it('answers unknown API paths with 404 in the envelope, in the caller’s language', async () => {
    const missing = await t.api('GET', '/api/iot/nothing-here', { headers: { lang: 'en' } });
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ code: 404, msg: 'Record not found', data: { error: 'NOT_FOUND' } });
  });

  it('carries a request id on every answer and accepts the caller’s', async () => {
    const response = await t.platform.app!.inject({ method: 'GET', url: '/health', headers: { 'x-request-id': 'req-42' } });
    expect(response.headers['x-request-id']).toBe('req-42');
    expect(t.logLines.some((line) => line.includes('"reqId":"req-42"'))).toBe(true);
  });

  it('takes the spec’s timestamp and stationId off a query before validation', async () => {
    const token = await t.login('admin', TEST_ADMIN_PASSWORD);
    // By path: `timestamp` is in no route's query schema, and this is what the adapter does with it.
    const list = await t.api('GET', `${specOf('tenant.list').path}?page=1&timestamp=${Date.now()}&stationId=g1`, { token });
    expect(list.status).toBe(200);
    const bad = await t.api('tenant.list', { token, query: { page: 0 }, headers: { lang: 'en' } });
    expect(bad.status).toBe(400);
    expect(bad.body.data.fields[0].field).toBe('querystring.page');
  });
});

describe('access control', () => {
  it('refuses to start with an /api route that declares no permission', async () => {
    const app = Fastify();
    registerAccessControl(app, async () => null);
    expect(() => app.get('/api/forgotten', async () => 'open')).toThrow(/declares no permission/);
    expect(() => app.get('/api/declared', { config: { permission: 'public' } }, async () => 'open')).not.toThrow();
  });
});
