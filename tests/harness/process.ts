import { spawn, type ChildProcess } from 'node:child_process';
import type { Routes } from '@iot/contracts';
import { urlOf, type RouteSpec } from '@iot/contracts/http/route.ts';
import type { TestDatabase } from './postgres.ts';
import { isRouteName, specOf, type RouteArgs, type RouteName } from './api.ts';
import { freePort } from './free-port.ts';

export const PROCESS_ADMIN_PASSWORD = 'Proc#adm1';

/** The platform as its own process (`npm start`'s entrypoint, with `args` such as `--role api`) on a test database. */
export async function startProcess(db: TestDatabase, dataDir: string, env: Record<string, string> = {}, args: string[] = []) {
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'infra/src/main.ts', ...args], {
    env: {
      ...process.env,
      DATABASE_URL: db.url,
      DATA_DIR: dataDir,
      PORT: String(port),
      HOST: '127.0.0.1',
      MQTT_PORT: String(await freePort()),
      ADMIN_PASSWORD: PROCESS_ADMIN_PASSWORD,
      DEMO_DATA: 'false',
      LOG_LEVEL: 'warn',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<number | string | null>((resolve) => child.once('exit', (code, signal) => resolve(signal ?? code)));
  await new Promise<void>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('is running')) resolve();
    });
    child.stderr!.on('data', (chunk: Buffer) => (out += chunk.toString()));
    void exited.then((code) => reject(new Error(`platform exited (${code}) before it ran:\n${out}`)));
  });
  const url = `http://127.0.0.1:${port}`;
  const send = async (method: string, route: string, body?: unknown, token?: string) => {
    const response = await fetch(url + route, {
      method,
      headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...(token ? { authentication: token } : {}) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, json: (await response.json().catch(() => null)) as { data: any } | null };
  };
  /** A route of the table by name, with the body and query its schemas take; or a method and a path. */
  function call<N extends RouteName>(name: N, args?: RouteArgs<Routes[N]>): ReturnType<typeof send>;
  function call(method: string, route: string, body?: unknown, token?: string): ReturnType<typeof send>;
  function call(first: string, second?: string | RouteArgs<RouteSpec>, body?: unknown, token?: string) {
    if (!isRouteName(first)) return send(first, second as string, body, token);
    const spec: RouteSpec = specOf(first);
    const args = (second ?? {}) as RouteArgs<RouteSpec>;
    return send(spec.method, urlOf(spec, args.query), args.body, args.token);
  }
  return {
    child,
    exited,
    url,
    call,
    async stop() {
      child.kill('SIGTERM');
      await exited;
    },
  };
}
export type PlatformProcess = Awaited<ReturnType<typeof startProcess>>;

/**
 * Waits until `fn` answers something truthy (a throw counts as not yet) and returns it: the one way tests wait,
 * on the condition itself, never for a fixed time. `intervalMs` is how often it asks.
 */
export async function waitFor<T>(
  what: string,
  fn: () => T | null | undefined | false | Promise<T | null | undefined | false>,
  timeoutMs = 60_000,
  intervalMs = 50,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await Promise.resolve()
      .then(fn)
      .catch(() => null);
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

/** Registers a tenant through the API (code read from the notifier's outbox) and approves it as the system administrator. */
export async function onboardTenant(p: PlatformProcess, db: TestDatabase, name: string, password: string): Promise<string> {
  const email = `${name.toLowerCase()}@acme.test`;
  const sent = await p.call('tenant.sendCode', { body: { method: 'email', target: email } });
  if (sent.status !== 200) throw new Error(`code not sent: ${JSON.stringify(sent.json)}`);
  const code = await waitFor('the code', async () => {
    const rows = await db.pool.query<{ body: string }>('select body from notify_outbox where recipient = $1 order by id desc limit 1', [
      email,
    ]);
    return /(\d{6})/.exec(rows.rows[0]?.body ?? '')?.[1];
  });
  const registered = await p.call('tenant.register', {
    body: { tenantName: name, contactName: 'Test', company: 'Acme', method: 'email', email, code, password },
  });
  if (registered.status !== 200) throw new Error(`not registered: ${JSON.stringify(registered.json)}`);
  const tenantId = registered.json!.data.id as string;
  const admin = await p.call('auth.login', { body: { account: 'admin', password: PROCESS_ADMIN_PASSWORD, agreement: true } });
  await p.call('tenant.approve', { body: { id: tenantId }, token: admin.json!.data.token }).catch(() => null);
  return tenantId;
}
