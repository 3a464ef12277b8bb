import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import Fastify from 'fastify';
import { handleCommand, newAggregateId } from '@iot/command/handler.ts';
import { userDecider, userStream } from '@iot/command/user/decide.ts';
import { seedDemoTenant } from '@iot/infra/platform.ts';
import { routes } from '@iot/contracts';
import { urlOf } from '@iot/contracts/http/route.ts';
import { fetchClient } from '../harness/fetch-client.ts';
import type { Figure } from './figure.ts';
import { startBenchPlatform } from './bare.ts';

const CONNECTIONS = 64;
const USERS = 1000;
const run = promisify(execFile);

/** Drives `url` from the load generator in its own process. */
async function load(url: string, token: string, seconds: number) {
  const { stdout } = await run(process.execPath, [
    '--import',
    'tsx',
    'tests/bench/load.ts',
    url,
    token,
    String(CONNECTIONS),
    String(seconds),
  ]);
  const result = JSON.parse(stdout) as { requests: number; errors: number; seconds: number; p99Ms: number };
  if (result.errors > 0) throw new Error(`${result.errors} of ${result.requests} requests to ${url} failed`);
  return { rate: result.requests / result.seconds, p99Ms: result.p99Ms };
}

/**
 * `api-read`: a paged user list (20 rows of a tenant of 1,000 users) from 64 connections, against a
 * Fastify hello-world route served by the same process and driven by the same generator (the limit).
 */
export async function benchApiRead(seconds: number): Promise<Figure[]> {
  const bench = await startBenchPlatform('api');
  const { platform } = bench;
  const hello = Fastify();
  hello.get('/hello', async () => ({ hello: 'world' }));
  try {
    const { tenantId } = await seedDemoTenant(platform.context, {
      id: 'bench',
      name: 'benchco',
      adminUsername: 'benchco',
      adminPassword: 'Bench#pw1',
    });
    for (let i = 0; i < USERS; i += 50)
      await Promise.all(
        Array.from({ length: Math.min(50, USERS - i) }, (_, k) => {
          const userId = newAggregateId({ tenantId, idempotencyKey: `bench-user-${i + k}` });
          return handleCommand(
            platform.context.store,
            userDecider,
            userStream(tenantId, userId),
            {
              type: 'CreateUser',
              userId,
              username: `bench_user_${i + k}`,
              email: null,
              phone: null,
              sex: 'unknown',
              position: 'operator',
              groupId: null,
              roleIds: [],
              description: null,
              homePage: null,
              isSystemAdmin: false,
              isTenantAdmin: false,
            },
            { tenantId, actor: { kind: 'system', id: 'bench' } },
          );
        }),
      );
    await platform.context.awaitProjections?.();
    const api = fetchClient(platform.url!.replace('localhost', '127.0.0.1'));
    const { token } = await api.data('auth.login', { body: { account: 'benchco', password: 'Bench#pw1', agreement: true } });
    const helloUrl = await hello.listen({ port: 0, host: '127.0.0.1' });
    const listUrl = api.base + urlOf(routes['user.list'], { page: 1, pageSize: 20 });
    await load(listUrl, token, 1); // warm-up
    const list = await load(listUrl, token, seconds);
    const limit = await load(`${helloUrl}/hello`, '', seconds);
    return [
      {
        bench: 'api-read',
        value: Math.round(list.rate),
        unit: 'requests/s',
        limit: Math.round(limit.rate),
        limit_of: 'fastify hello-world, same process and generator',
        ratio: Number((list.rate / limit.rate).toFixed(3)),
        p99_ms: Math.round(list.p99Ms * 10) / 10,
      },
    ];
  } finally {
    await hello.close();
    await bench.stop();
  }
}
