/**
 * `npm run projections -- rebuild NAME` drops one read model and replays the whole log into it;
 * `npm run projections -- status` prints each projection's checkpoint. Runs beside a live platform:
 * the live runner notices the moved checkpoint and resumes from it.
 */
import { migrator } from '../migrate/migrate.ts';
import path from 'node:path';
import { createProjectionRunner, projections } from '@iot/projections/index.ts';
import { loadConfig } from '../config.ts';
import { createPostgresEventStore } from '../event-store/postgres.ts';
import { startEmbeddedPostgres } from '../postgres/embedded.ts';
import { createSqlPool } from '../postgres/sql.ts';

const [command, name] = process.argv.slice(2);
const names = projections.map((p) => p.name);
if (command !== 'rebuild' && command !== 'status') {
  process.stderr.write(`usage: npm run projections -- rebuild NAME | status\nprojections: ${names.join(', ')}\n`);
  process.exit(2);
}
if (command === 'rebuild' && (!name || !names.includes(name))) {
  process.stderr.write(`unknown projection ${name ?? '(none)'}; known: ${names.join(', ')}\n`);
  process.exit(2);
}

const config = loadConfig();
let url = config.DATABASE_URL;
let stopEmbedded: (() => Promise<void>) | null = null;
if (!url) {
  // The embedded cluster of `npm start`: reuse it when the platform runs, else start it for this command.
  const candidate = `postgres://postgres:postgres@127.0.0.1:${config.EMBEDDED_PG_PORT}/devicecloud`;
  const probe = createSqlPool(candidate, 1);
  const running = await probe.query('select 1').then(
    () => true,
    () => false,
  );
  await probe.end();
  if (running) url = candidate;
  else {
    const pg = await startEmbeddedPostgres({ dataDir: path.join(config.DATA_DIR, 'postgres'), port: config.EMBEDDED_PG_PORT });
    url = pg.url;
    stopEmbedded = () => pg.stop();
  }
}
const pool = createSqlPool(url, 4);
const store = config.EVENTSTORE_URL
  ? await (await import('../event-store/kurrentdb.ts')).createKurrentEventStore({ url: config.EVENTSTORE_URL })
  : await createPostgresEventStore(pool);
const runner = createProjectionRunner(store, pool, projections, { migrate: migrator(pool) });
await runner.setup();
try {
  if (command === 'rebuild') {
    const started = Date.now();
    const { events } = await runner.rebuild(name!);
    process.stdout.write(`rebuilt ${name}: ${events} events applied in ${Date.now() - started} ms\n`);
  } else {
    const rows = await pool.query<{ name: string; position: string | null; updated_at: Date }>(
      'select name, position, updated_at from projection_checkpoints order by name',
    );
    const head = await store.headPosition();
    process.stdout.write(`head of the log: ${head ?? '(empty)'}\n`);
    for (const row of rows.rows) process.stdout.write(`${row.name}\t${row.position ?? '(start)'}\t${row.updated_at.toISOString()}\n`);
  }
} finally {
  await store.close();
  await pool.end();
  await stopEmbedded?.();
}
