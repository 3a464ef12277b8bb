import { spawn } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, join, resolve } from 'node:path';
import type { EngineHandle } from './engines.ts';
import { freePort, waitForPort } from './free-port.ts';

/** The key pair moto takes (any pair will do) and a real store given by S3_TEST_URL is asked for with. */
export const S3_TEST_CREDENTIALS = {
  accessKeyId: process.env.S3_TEST_ACCESS_KEY_ID ?? 'test-access-key',
  secretAccessKey: process.env.S3_TEST_SECRET_ACCESS_KEY ?? 'test-secret-key',
};

/** moto's server: from the venv .ci/install-engines.sh makes (tests/.engines/moto), MOTO_SERVER, or the PATH. */
export function findMotoServer(): string | undefined {
  const candidates = [
    process.env.MOTO_SERVER,
    resolve(import.meta.dirname, '../.engines/moto/bin/moto_server'),
    ...(process.env.PATH ?? '').split(delimiter).map((dir) => join(dir, 'moto_server')),
  ];
  for (const candidate of candidates) {
    if (!candidate) continue;
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

/**
 * A real S3-compatible server for tests: moto in server mode on a free loopback port, in memory. Use through
 * resolveEngine('moto (S3)', 'S3_TEST_URL', startMoto).
 */
export async function startMoto(): Promise<EngineHandle> {
  const binary = findMotoServer();
  if (!binary) throw new Error("moto_server is not installed (pip install 'moto[server]', or run .ci/install-engines.sh)");
  const port = await freePort();
  const child = spawn(binary, ['-H', '127.0.0.1', '-p', String(port)], { stdio: ['ignore', 'ignore', 'pipe'] });
  let output = '';
  child.stderr.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-4000)));
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  try {
    await waitForPort(port, 30_000, '127.0.0.1', () => child.exitCode === null);
  } catch (error) {
    child.kill('SIGKILL');
    throw new Error(`moto_server did not listen: ${(error as Error).message}\n${output}`, { cause: error });
  }
  return {
    url: `http://127.0.0.1:${port}`,
    async stop() {
      child.kill('SIGTERM');
      await exited;
    },
  };
}
