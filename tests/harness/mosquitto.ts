import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import type { EngineHandle } from './engines.ts';
import { freePort, waitForPort } from './free-port.ts';

/**
 * A real Mosquitto broker for tests: Debian's `mosquitto` binary on a free loopback port, anonymous,
 * no persistence. Use through resolveEngine('Mosquitto', 'MQTT_URL', startMosquitto).
 */
export function findMosquitto(): string | undefined {
  const dirs = [...(process.env.PATH ?? '').split(delimiter), '/usr/sbin', '/usr/local/sbin'];
  for (const dir of dirs) {
    const candidate = join(dir, 'mosquitto');
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

export async function startMosquitto(): Promise<EngineHandle> {
  const binary = findMosquitto();
  if (!binary) throw new Error('the mosquitto binary is not installed (apt-get install -y mosquitto, or run .ci/install-engines.sh)');
  const dir = await mkdtemp(join(tmpdir(), 'mosquitto-'));
  const port = await freePort();
  const config = join(dir, 'mosquitto.conf');
  const log = join(dir, 'mosquitto.log');
  await writeFile(
    config,
    [
      `listener ${port} 127.0.0.1`,
      'allow_anonymous true',
      'persistence false',
      `log_dest file ${log}`,
      'log_type error',
      'log_type warning',
      // No per-client queue limit: a slow test client must not lose messages to the broker's default of 1000.
      'max_queued_messages 0',
      '',
    ].join('\n'),
  );
  const broker: ChildProcess = spawn(binary, ['-c', config], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  broker.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  let exited = false;
  const exit = new Promise<void>((done) => broker.once('exit', () => ((exited = true), done())));
  broker.once('error', () => (exited = true));
  const killOnExit = (): void => void broker.kill('SIGKILL');
  process.once('exit', killOnExit);

  const stop = async (): Promise<void> => {
    process.off('exit', killOnExit);
    if (!exited) {
      broker.kill('SIGTERM');
      const timer = setTimeout(() => broker.kill('SIGKILL'), 5_000);
      await exit;
      clearTimeout(timer);
    }
    await rm(dir, { recursive: true, force: true });
  };

  try {
    await waitForPort(port, 10_000, '127.0.0.1', () => !exited);
  } catch (error) {
    const logged = await readFile(log, 'utf8').catch(() => '');
    await stop();
    throw new Error(`mosquitto did not start: ${(error as Error).message}\n${stderr}${logged}`.trim(), { cause: error });
  }
  return { url: `mqtt://127.0.0.1:${port}`, stop };
}
