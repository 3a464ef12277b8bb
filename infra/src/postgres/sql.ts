import os from 'node:os';
import pg from 'pg';

/** The SQL surface that modules outside infra/ see: no `pg` import leaks past this file. */
export interface Sql {
  /**
   * Runs a statement. `prepare` names it, so that each connection parses and plans it once: for hot
   * statements with fixed text only (one name per distinct text).
   */
  query<R extends Record<string, unknown> = Record<string, unknown>>(
    text: string,
    params?: unknown[],
    options?: { prepare?: string },
  ): Promise<{ rows: R[]; rowCount: number }>;
}

export interface SqlPool extends Sql {
  /** Runs `fn` in one transaction: committed when it resolves, rolled back when it throws. */
  transaction<T>(fn: (tx: Sql) => Promise<T>): Promise<T>;
  /** A dedicated connection for LISTEN; released by the returned function. */
  listen(channel: string, onNotify: (payload: string | undefined) => void): Promise<() => Promise<void>>;
  end(): Promise<void>;
}

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
