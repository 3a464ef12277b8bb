/**
 * A second ingest process for `ingest-mosquitto` (issue 23): the platform with `--role ingest` on the bench's
 * PostgreSQL and Mosquitto (its configuration in the environment), its own chDB under DATA_DIR. Driven over IPC by
 * the bench: `count` answers the rows its store holds, `stop` stops it (its batches flushed) and ends the process.
 * Started with `fork` (startIngestChild); prints nothing.
 */
import { fork } from 'node:child_process';
import pino from 'pino';
import { loadConfig } from '@iot/infra/config.ts';
import { startPlatform } from '@iot/infra/platform.ts';
import type { ClickHouseTimeSeriesStore } from '@iot/infra/timeseries/clickhouse.ts';
import { countRows } from './bare.ts';

type Request = { id: number; op: 'count' | 'stop' };
type Answer = { id: number; n?: number; error?: string } | { ready: true } | { failed: string };

/** Forks this file as an ingest process with `env`; resolves once it takes messages. */
export async function startIngestChild(env: Record<string, string>) {
  const child = fork(new URL(import.meta.url).pathname, [], {
    execArgv: ['--import', 'tsx'],
    env: { ...process.env, ...env, BENCH_INGEST_CHILD: '1' },
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  const waiting = new Map<number, (answer: Answer) => void>();
  let next = 0;
  const ready = new Promise<void>((resolve, reject) => {
    child.on('message', (answer: Answer) => {
      if ('ready' in answer) resolve();
      else if ('failed' in answer) reject(new Error(`the ingest process did not start: ${answer.failed}`));
      else {
        waiting.get(answer.id)?.(answer);
        waiting.delete(answer.id);
      }
    });
    child.once('exit', (code) => reject(new Error(`the ingest process exited (${code}) before it ran`)));
  });
  await ready;
  const ask = (op: Request['op']) =>
    new Promise<number>((resolve, reject) => {
      const id = ++next;
      waiting.set(id, (answer) =>
        'error' in answer && answer.error ? reject(new Error(answer.error)) : resolve((answer as { n?: number }).n ?? 0),
      );
      child.send({ id, op } satisfies Request);
    });
  return {
    /** Rows in its `telemetry` table. */
    count: () => ask('count'),
    async stop() {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      await ask('stop').catch(() => child.kill('SIGKILL'));
      await exited;
    },
  };
}

if (process.env.BENCH_INGEST_CHILD === '1' && process.send) {
  const send = (answer: Answer) => process.send!(answer);
  try {
    const platform = await startPlatform(loadConfig(process.env), {
      role: 'ingest',
      staticDir: null,
      seedDemo: false,
      logger: pino({ level: 'silent' }),
    });
    const store = platform.timeseries as ClickHouseTimeSeriesStore;
    process.on('message', (request: Request) => {
      const done =
        request.op === 'count'
          ? countRows(store.client, 'telemetry').then((n) => send({ id: request.id, n }))
          : platform.stop().then(() => process.send!({ id: request.id } satisfies Answer, () => process.exit(0)));
      done.catch((error: unknown) => send({ id: request.id, error: String(error) }));
    });
    send({ ready: true });
  } catch (error) {
    send({ failed: String(error) });
    process.exit(1);
  }
}
