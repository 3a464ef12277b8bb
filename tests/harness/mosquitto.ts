import { spawn, type ChildProcess } from 'node:child_process';
import { execFile } from 'node:child_process';
import { accessSync, constants, existsSync, readdirSync } from 'node:fs';
import { promisify } from 'node:util';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import type { EngineHandle } from './engines.ts';
import { freePort, waitForPort } from './free-port.ts';

/**
 * A real Mosquitto broker for tests: Debian's `mosquitto` binary on a free loopback port, anonymous,
 * no persistence. Use through resolveEngine('Mosquitto', 'MQTT_URL', startMosquitto).
 * With `dynamicSecurity`, anonymous clients are refused and the dynamic-security plugin decides who may
 * connect; `adminUrl` carries the credentials of its administrator (`mosquitto_ctrl dynsec init`).
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

/** Debian's dynamic-security plugin (`dpkg -L mosquitto | grep dynamic`). */
export function findDynamicSecurityPlugin(): string | undefined {
  const name = 'mosquitto_dynamic_security.so';
  const dirs = [
    '/usr/lib',
    ...readdirSync('/usr/lib')
      .filter((d) => d.endsWith('-linux-gnu'))
      .map((d) => join('/usr/lib', d)),
  ];
  return dirs.map((d) => join(d, name)).find((p) => existsSync(p));
}

export const DYNSEC_ADMIN = { username: 'platform-admin', password: 'Dynsec#admin1' };

export interface MosquittoHandle extends EngineHandle {
  /** The same broker with the dynamic-security administrator's credentials (with `dynamicSecurity`). */
  adminUrl: string;
}

export async function startMosquitto(options: { dynamicSecurity?: boolean } = {}): Promise<MosquittoHandle> {
  const binary = findMosquitto();
  if (!binary) throw new Error('the mosquitto binary is not installed (apt-get install -y mosquitto, or run .ci/install-engines.sh)');
  const plugin = options.dynamicSecurity ? findDynamicSecurityPlugin() : undefined;
  if (options.dynamicSecurity && !plugin) throw new Error('mosquitto_dynamic_security.so not found (Debian package mosquitto 2.0)');
  const dir = await mkdtemp(join(tmpdir(), 'mosquitto-'));
  const port = await freePort();
  const config = join(dir, 'mosquitto.conf');
  const log = join(dir, 'mosquitto.log');
  const dynsecFile = join(dir, 'dynamic-security.json');
  if (plugin) await promisify(execFile)('mosquitto_ctrl', ['dynsec', 'init', dynsecFile, DYNSEC_ADMIN.username, DYNSEC_ADMIN.password]);
  await writeFile(
    config,
    [
      `listener ${port} 127.0.0.1`,
      ...(plugin ? ['allow_anonymous false', `plugin ${plugin}`, `plugin_opt_config_file ${dynsecFile}`] : ['allow_anonymous true']),
      // Started as root, mosquitto would become the `mosquitto` user, who cannot read or save the plugin's file in this private folder.
      ...(process.getuid?.() === 0 ? ['user root'] : []),
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
  const credentials = plugin ? `${DYNSEC_ADMIN.username}:${encodeURIComponent(DYNSEC_ADMIN.password)}@` : '';
  return { url: `mqtt://127.0.0.1:${port}`, adminUrl: `mqtt://${credentials}127.0.0.1:${port}`, stop };
}
