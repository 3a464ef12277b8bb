import os from 'node:os';
import pg from 'pg';

import type { Sql, SqlPool } from '@iot/contracts/ports/sql.ts';

export type { Sql, SqlPool };

// bigint (int8) columns come back as JS numbers: counts and positions stay far below 2^53.
pg.types.setTypeParser(20, (v) => Number(v));

/**
 * Connections of the API's pool: three per core. More backends only split the same cores finer and starve
 * the projection runner (which has its own pool); past this, commands queue in the process instead.
 */
export const API_POOL_SIZE = Math.max(4, os.availableParallelism() * 3);
/** Connections of the projections: their reads of the log and their read-model transactions. */
export const PROJECTION_POOL_SIZE = 4;

export function createSqlPool(url: string, max = API_POOL_SIZE): SqlPool {
  const pool = new pg.Pool({ connectionString: url, max });
  // An idle client losing its connection (server restart) must not crash the process.
  pool.on('error', () => {});
  const wrap = (client: pg.Pool | pg.PoolClient): Sql => ({
    async query(text, params, options) {
      const result = await client.query({ text, values: params as unknown[], ...(options?.prepare ? { name: options.prepare } : {}) });
      return { rows: result.rows, rowCount: result.rowCount ?? 0 };
    },
  });
  return {
    ...wrap(pool),
    async transaction(fn) {
      const client = await pool.connect();
      try {
        await client.query('begin');
        const result = await fn(wrap(client));
        await client.query('commit');
        return result;
      } catch (error) {
        await client.query('rollback').catch(() => {});
        throw error;
      } finally {
        client.release();
      }
    },
    async listen(channel, onNotify) {
      const client = new pg.Client({ connectionString: url });
      client.on('error', () => {});
      await client.connect();
      client.on('notification', (message) => onNotify(message.payload));
      await client.query(`listen "${channel.replace(/"/g, '')}"`);
      return async () => {
        await client.end().catch(() => {});
      };
    },
    end: () => pool.end(),
  };
}
