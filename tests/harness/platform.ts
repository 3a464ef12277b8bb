import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import pino from 'pino';
import { loadConfig } from '@iot/infra/config.ts';
import { startPlatform, type Platform } from '@iot/infra/platform.ts';
import { createTestDatabase, type TestDatabase } from './postgres.ts';

export const TEST_ADMIN_PASSWORD = 'admin123';

export interface TestPlatform {
  platform: Platform;
  db: TestDatabase;
  /** Every log line the platform wrote, for tests that check what never reaches a log. */
  logLines: string[];
  api(
    method: string,
    url: string,
    options?: { body?: unknown; token?: string; headers?: Record<string, string> },
  ): Promise<{ status: number; body: any }>;
  login(account: string, password: string): Promise<string>;
  stop(): Promise<void>;
}

/**
 * The whole platform in this process on a fresh database: real PostgreSQL, chDB, projections.
 * Requests go through Fastify's inject: the full pipeline of hooks, validation and handlers, without a socket.
 */
export async function startTestPlatform(env: Record<string, string> = {}): Promise<TestPlatform> {
  const db = await createTestDatabase();
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'dc-platform-'));
  const logLines: string[] = [];
  const logger = pino(
    { level: 'info' },
    new Writable({
      write(chunk, _encoding, done) {
        logLines.push(String(chunk));
        done();
      },
    }),
  );
  const config = loadConfig({ ADMIN_PASSWORD: TEST_ADMIN_PASSWORD, DATA_DIR: dataDir, DATABASE_URL: db.url, HOST: '127.0.0.1', ...env });
  const platform = await startPlatform(config, { port: 0, mqttPort: 0, staticDir: null, logger });
  const api: TestPlatform['api'] = async (method, url, options = {}) => {
    const response = await platform.app!.inject({
      method: method as 'GET',
      url,
      headers: { ...(options.token ? { authentication: options.token } : {}), ...(options.headers ?? {}) },
      ...(options.body !== undefined ? { payload: options.body as object } : {}),
    });
    let body: unknown = response.body;
    try {
      body = response.json();
    } catch {
      // not JSON: keep the text
    }
    return { status: response.statusCode, body };
  };
  return {
    platform,
    db,
    logLines,
    api,
    async login(account, password) {
      const response = await api('POST', '/api/auth/login', { body: { account, password, agreement: true } });
      if (response.status !== 200) throw new Error(`login of ${account} failed: ${JSON.stringify(response.body)}`);
      return response.body.data.token as string;
    },
    async stop() {
      await platform.stop();
      await db.drop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
