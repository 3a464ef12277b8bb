import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPostgresEventStore } from '@iot/infra/event-store/postgres.ts';
import { createTestDatabase, type TestDatabase } from '../harness/postgres.ts';
import { waitFor } from '../harness/process.ts';

describe('killing a writer mid-append', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(async () => db?.drop());

  it('leaves every append whole or absent, and every stream without gaps', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'tests/fixtures/append-forever.ts', db.url], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    await new Promise<void>((resolve, reject) => {
      child.stdout!.on('data', (chunk: Buffer) => chunk.toString().includes('ready') && resolve());
      child.on('exit', (code) => reject(new Error(`writer exited early with ${code}`)));
    });
    // Killed once it has committed a good many batches: its 16 loops are then always mid-append.
    await waitFor(
      '50 batches committed',
      async () => (await db.pool.query<{ n: number }>('select count(*)::int as n from es_events')).rows[0]!.n >= 250,
    );
    child.kill('SIGKILL');
    await new Promise((resolve) => child.once('exit', resolve));

    const batches = await db.pool.query<{ batch: string; n: number }>(
      `select data->>'batch' as batch, count(*)::int as n from es_events group by 1`,
    );
    expect(batches.rowCount).toBeGreaterThan(10);
    expect(batches.rows.filter((b) => b.n !== 5)).toEqual([]);
    const gaps = await db.pool.query(
      `select stream_name from es_events group by stream_name having max(stream_version) <> count(*) or min(stream_version) <> 1`,
    );
    expect(gaps.rows).toEqual([]);

    // The store keeps working after the crash: a reader sees every committed event.
    const store = await createPostgresEventStore(db.pool);
    const all = await store.readAll({ limit: 100_000 });
    const total = batches.rows.reduce((sum, b) => sum + b.n, 0);
    expect(all).toHaveLength(total);
    await store.close();
  });
});
