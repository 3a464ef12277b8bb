import { randomBytes } from 'node:crypto';
import { inject } from 'vitest';
import { createSqlPool, type SqlPool } from '@iot/infra/postgres/sql.ts';

export interface TestDatabase {
  url: string;
  pool: SqlPool;
  drop(): Promise<void>;
}

/** A fresh database on the run's PostgreSQL, so that suites never see each other's rows. */
export async function createTestDatabase(): Promise<TestDatabase> {
  const serverUrl = inject('postgresUrl');
  const name = `t_${randomBytes(6).toString('hex')}`;
  const admin = createSqlPool(serverUrl, 1);
  await admin.query(`create database ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const pool = createSqlPool(url.toString(), 40);
  return {
    url: url.toString(),
    pool,
    async drop() {
      await pool.end();
      await admin.query(`drop database if exists ${name} with (force)`);
      await admin.end();
    },
  };
}
