import { randomBytes } from 'node:crypto';
import { connect, type MqttClient } from 'mqtt';
import { brokerAddress } from '../mqtt/client.ts';
import type { BrokerAccounts, BrokerDevice } from './port.ts';

/**
 * Device accounts in Mosquitto's dynamic-security plugin (Debian's mosquitto 2.0.11 ships it), driven over its
 * MQTT control topic with an administrator's account (`mosquitto_ctrl dynsec init`): one client per device
 * (username = SN, password = the device secret) and one role per device allowing only its own topics
 * (README "MQTT topics"). 2.0.11 has no `%u` in ACLs and takes only plain passwords, hence a role per device and
 * the secret handed over when it is made.
 */
const CONTROL = '$CONTROL/dynamic-security/v1';
const RESPONSE = `${CONTROL}/response`;
/** The role the platform's own account gets: the downlink (its admin role already lets it subscribe to everything). */
export const PLATFORM_ROLE = 'iot-platform';

type Command = { command: string } & Record<string, unknown>;
interface Response {
  command: string;
  error?: string;
  data?: unknown;
  correlationData?: string;
}

export class DynsecError extends Error {
  constructor(
    readonly command: string,
    readonly reason: string,
  ) {
    super(`dynsec ${command}: ${reason}`);
  }
}

const roleOf = (sn: string) => `device:${sn}`;
/** A device's own namespace (README "MQTT topics"), a gateway's too: up- and downlink topics may grow inside it. */
const aclsOf = (device: BrokerDevice) =>
  [`devices/${device.sn}/#`, ...(device.gateway ? [`gateways/${device.sn}/#`] : [])].flatMap((topic) => [
    { acltype: 'publishClientSend', topic, allow: true },
    { acltype: 'subscribePattern', topic, allow: true },
  ]);

export interface MosquittoAccounts extends BrokerAccounts {
  /** Gives the platform's own account (`username`) the downlink; adding a role disconnects that account's clients once. */
  grantPlatform(username: string): Promise<void>;
  /** One control command, answered (tests, tools). */
  send(command: Command): Promise<Response>;
}

export interface MosquittoAccountsOptions {
  /** The broker with a dynamic-security administrator's credentials: `mqtt://admin:password@host:1883`. */
  url: string;
  /** Per command; default 10 s. */
  timeoutMs?: number;
}

export async function connectMosquittoAccounts(options: MosquittoAccountsOptions): Promise<MosquittoAccounts> {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const prefix = randomBytes(6).toString('hex');
  let sequence = 0;
  const waiting = new Map<string, (response: Response) => void>();
  const address = brokerAddress(options.url);
  const client: MqttClient = connect(address.url, {
    username: address.username,
    password: address.password,
    clientId: `platform-accounts-${prefix}`,
    clean: true,
    reconnectPeriod: 1000,
    connectTimeout: 10_000,
  });
  client.on('error', () => undefined);
  client.on('message', (topic, payload) => {
    if (topic !== RESPONSE) return;
    let body: { responses?: Response[] };
    try {
      body = JSON.parse(payload.toString('utf8')) as { responses?: Response[] };
    } catch {
      return;
    }
    // Other platform processes share the account and the response topic: only our correlation ids are ours.
    for (const response of body.responses ?? []) if (response.correlationData) waiting.get(response.correlationData)?.(response);
  });
  await new Promise<void>((resolve, reject) => {
    client.once('connect', () => resolve());
    client.once('error', reject);
  });
  await client.subscribeAsync(RESPONSE, { qos: 1 });

  async function send(command: Command, waitMs = timeoutMs): Promise<Response> {
    const correlationData = `${prefix}-${++sequence}`;
    const answered = new Promise<Response>((resolve, reject) => {
      const timer = setTimeout(() => {
        waiting.delete(correlationData);
        reject(new DynsecError(command.command, `no answer within ${waitMs} ms`));
      }, waitMs);
      waiting.set(correlationData, (response) => {
        clearTimeout(timer);
        waiting.delete(correlationData);
        resolve(response);
      });
    });
    await client.publishAsync(CONTROL, JSON.stringify({ commands: [{ ...command, correlationData }] }), { qos: 1 });
    return answered;
  }

  /** Runs a command; an error among `tolerated` (the state is already what was asked) counts as done. */
  async function run(command: Command, ...tolerated: string[]): Promise<Response> {
    const response = await send(command);
    if (response.error && !tolerated.includes(response.error)) throw new DynsecError(command.command, response.error);
    return response;
  }

  const createRole = (device: BrokerDevice) =>
    run({ command: 'createRole', rolename: roleOf(device.sn), acls: aclsOf(device) }, 'Role already exists');

  return {
    async provision(device) {
      await createRole(device);
      await run({ command: 'createClient', username: device.sn, roles: [{ rolename: roleOf(device.sn) }] }, 'Client already exists');
    },

    async setSecret(device, secret) {
      await createRole(device);
      const created = await run(
        { command: 'createClient', username: device.sn, password: secret, roles: [{ rolename: roleOf(device.sn) }] },
        'Client already exists',
      );
      // Made already (by the reactor, or an older secret): a new password, which also disconnects the device.
      if (created.error) await run({ command: 'setClientPassword', username: device.sn, password: secret });
    },

    async setEnabled(sn, enabled) {
      await run({ command: enabled ? 'enableClient' : 'disableClient', username: sn }, 'Client not found');
    },

    async remove(sn) {
      await run({ command: 'deleteClient', username: sn }, 'Client not found');
      await run({ command: 'deleteRole', rolename: roleOf(sn) }, 'Role not found');
    },

    async grantPlatform(username) {
      await run(
        {
          command: 'createRole',
          rolename: PLATFORM_ROLE,
          acls: [
            { acltype: 'publishClientSend', topic: 'devices/#', allow: true },
            { acltype: 'publishClientSend', topic: 'gateways/#', allow: true },
            { acltype: 'subscribePattern', topic: 'devices/#', allow: true },
            { acltype: 'subscribePattern', topic: 'gateways/#', allow: true },
          ],
        },
        'Role already exists',
      );
      const granted = async () => {
        const account = await run({ command: 'getClient', username });
        return ((account.data as { client?: { roles?: { rolename: string }[] } }).client?.roles ?? []).some(
          (r) => r.rolename === PLATFORM_ROLE,
        );
      };
      if (await granted()) return;
      // Mosquitto disconnects the account's clients, this one too, before it answers: the role is checked once reconnected.
      await send({ command: 'addClientRole', username, rolename: PLATFORM_ROLE }, 2_000).catch(() => undefined);
      if (!(await granted())) throw new DynsecError('addClientRole', `${username} did not get the role ${PLATFORM_ROLE}`);
    },

    send,

    async health() {
      return client.connected
        ? { ok: true, detail: 'dynamic security' }
        : { ok: false, detail: client.reconnecting ? 'reconnecting' : 'disconnected' };
    },

    async close() {
      for (const resolve of waiting.values()) resolve({ command: 'close', error: 'closed' });
      await client.endAsync();
    },
  };
}
