import { randomBytes } from 'node:crypto';
import { connect, type MqttClient } from 'mqtt';
import type { MqttAccess } from '@iot/contracts';
import type { MqttUserAccount, MqttUserAccounts } from '@iot/contracts/ports/mqtt-user-accounts.ts';
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
/** Commands sent in one control message (each account costs two at most). */
const COMMANDS_PER_MESSAGE = 500;
/** A device's own namespace (README "MQTT topics"), a gateway's too: up- and downlink topics may grow inside it. */
const aclsOf = (device: BrokerDevice) =>
  [`devices/${device.sn}/#`, ...(device.gateway ? [`gateways/${device.sn}/#`] : [])].flatMap((topic) => [
    { acltype: 'publishClientSend', topic, allow: true },
    { acltype: 'subscribePattern', topic, allow: true },
  ]);

/** An MQTT user's group (its account and its topic rules' roles meet there), and a topic rule's role. */
const userGroupOf = (userId: string) => `mqttuser:${userId}`;
const aclRoleOf = (aclId: string) => `mqttacl:${aclId}`;
/** What a topic rule lets a user do: publish, subscribe (receiving is open by default), or both. */
const userAclsOf = (topic: string, access: MqttAccess) => [
  ...(access === 'subscribe' ? [] : [{ acltype: 'publishClientSend', topic, allow: true }]),
  ...(access === 'publish' ? [] : [{ acltype: 'subscribePattern', topic, allow: true }]),
];

export interface MosquittoAccounts extends BrokerAccounts {
  mqttUsers: MqttUserAccounts;
  /** Gives the platform's own account (`username`) the downlink; adding a role disconnects that account's clients once. */
  grantPlatform(username: string): Promise<void>;
  /** Binds every device account made before client ids were bound to its SN (an upgrade); how many it bound. */
  bindClientIds(): Promise<number>;
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
    const refused = (error: Error) => {
      client.end(true);
      reject(error);
    };
    client.once('connect', () => {
      client.off('error', refused);
      resolve();
    });
    client.once('error', refused);
  });
  await client.subscribeAsync(RESPONSE, { qos: 1 });

  /**
   * Sends commands in one control message (the plugin runs them in order, and a round trip costs tens of
   * milliseconds on a broker without `set_tcp_nodelay`) and resolves with their answers, in order.
   */
  async function sendAll(commands: Command[], waitMs = timeoutMs): Promise<Response[]> {
    const ids = commands.map(() => `${prefix}-${++sequence}`);
    const answers = commands.map(
      (command, i) =>
        new Promise<Response>((resolve, reject) => {
          const id = ids[i]!;
          const timer = setTimeout(() => {
            waiting.delete(id);
            reject(
              new DynsecError(
                command.command,
                `no answer within ${waitMs} ms (is the dynamic-security plugin loaded, and MQTT_URL's account its administrator?)`,
              ),
            );
          }, waitMs);
          waiting.set(id, (response) => {
            clearTimeout(timer);
            waiting.delete(id);
            resolve(response);
          });
        }),
    );
    // Every answer is awaited (or timed out) even when one fails, so that none is left unhandled.
    const settled = Promise.allSettled(answers);
    await client.publishAsync(CONTROL, JSON.stringify({ commands: commands.map((c, i) => ({ ...c, correlationData: ids[i] })) }), {
      qos: 1,
    });
    const results = await settled;
    const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) throw failed.reason;
    return results.map((r) => (r as PromiseFulfilledResult<Response>).value);
  }
  const send = async (command: Command, waitMs = timeoutMs) => (await sendAll([command], waitMs))[0]!;

  /** Runs commands, a chunk per message; an error among `tolerated` (the state is already what was asked) counts as done. */
  async function run(commands: Command[], ...tolerated: string[]): Promise<Response[]> {
    const responses: Response[] = [];
    for (let i = 0; i < commands.length; i += COMMANDS_PER_MESSAGE) {
      const chunk = commands.slice(i, i + COMMANDS_PER_MESSAGE);
      responses.push(...(await sendAll(chunk)));
    }
    const failed = responses.find((r) => r.error && !tolerated.includes(r.error));
    if (failed) throw new DynsecError(failed.command, failed.error!);
    return responses;
  }

  const createRole = (device: BrokerDevice): Command => ({ command: 'createRole', rolename: roleOf(device.sn), acls: aclsOf(device) });
  const createClient = (device: BrokerDevice, password?: string): Command => ({
    command: 'createClient',
    username: device.sn,
    // The device's client id is its SN: no other account can connect with it and take its session over.
    clientid: device.sn,
    ...(password === undefined ? {} : { password }),
    roles: [{ rolename: roleOf(device.sn) }],
  });

  /** Whether the account `username` is this MQTT user's (never a device's that happens to have the name). */
  async function isUsers(user: MqttUserAccount) {
    const [found] = await run([{ command: 'getClient', username: user.username }], 'Client not found');
    if (found!.error) return false;
    const groups = (found!.data as { client?: { groups?: { groupname: string }[] } }).client?.groups ?? [];
    return groups.some((g) => g.groupname === userGroupOf(user.userId));
  }
  /** The user's group and account (in the group; its client id is its username, so it takes no device's session). */
  async function createUser(user: MqttUserAccount, password?: string) {
    const [, created] = await run(
      [
        { command: 'createGroup', groupname: userGroupOf(user.userId) },
        {
          command: 'createClient',
          username: user.username,
          clientid: user.username,
          ...(password === undefined ? {} : { password }),
          groups: [{ groupname: userGroupOf(user.userId) }],
        },
      ],
      'Group already exists',
      'Client already exists',
    );
    return !created!.error;
  }
  const mqttUsers: MqttUserAccounts = {
    async createUser(user) {
      await createUser(user);
    },
    async setPassword(user, password) {
      if (await createUser(user, password)) return;
      if (!(await isUsers(user))) throw new DynsecError('createClient', `the account ${user.username} is not this MQTT user's`);
      // A new password disconnects the user's sessions.
      await run([{ command: 'setClientPassword', username: user.username, password }]);
    },
    async removeUser(user) {
      if (await isUsers(user)) await run([{ command: 'deleteClient', username: user.username }], 'Client not found');
      await run([{ command: 'deleteGroup', groupname: userGroupOf(user.userId) }], 'Group not found');
    },
    async grant(rule) {
      const rolename = aclRoleOf(rule.aclId);
      // The rule's role made anew: deleting it takes it from the group it was in (a rule may move to another user).
      await run(
        [
          { command: 'deleteRole', rolename },
          { command: 'createRole', rolename, acls: userAclsOf(rule.topic, rule.access) },
          { command: 'createGroup', groupname: userGroupOf(rule.userId) },
          { command: 'addGroupRole', groupname: userGroupOf(rule.userId), rolename },
        ],
        'Role not found',
        'Group already exists',
      );
    },
    async revoke(aclId) {
      await run([{ command: 'deleteRole', rolename: aclRoleOf(aclId) }], 'Role not found');
    },
  };

  return {
    mqttUsers,

    async provision(devices) {
      // An account made already (by the create answer's `setSecret`) is bound to its SN; older ones by `bindClientIds`.
      await run(
        devices.flatMap((d) => [createRole(d), createClient(d)]),
        'Role already exists',
        'Client already exists',
      );
    },

    // setClientId disconnects the device: only accounts not bound yet get it.
    async bindClientIds() {
      const [listed] = await run([{ command: 'listClients', verbose: true, count: -1, offset: 0 }]);
      const clients =
        (listed!.data as { clients?: { username: string; clientid?: string; roles?: { rolename: string }[] }[] }).clients ?? [];
      const unbound = clients.filter((c) => c.roles?.some((r) => r.rolename === roleOf(c.username)) && c.clientid !== c.username);
      if (unbound.length > 0) await run(unbound.map((c) => ({ command: 'setClientId', username: c.username, clientid: c.username })));
      return unbound.length;
    },

    async setSecret(device, secret) {
      const [, created] = await run([createRole(device), createClient(device, secret)], 'Role already exists', 'Client already exists');
      // Made already (by the reactor, or an older secret): a new password, which also disconnects the device.
      if (created!.error) await run([{ command: 'setClientPassword', username: device.sn, password: secret }]);
    },

    async setEnabled(sns, enabled) {
      await run(
        sns.map((username) => ({ command: enabled ? 'enableClient' : 'disableClient', username })),
        'Client not found',
      );
    },

    // A new password (setClientPassword, from the rotate answer) already disconnected the device.
    async rotated() {},

    async remove(sn) {
      await run(
        [
          { command: 'deleteClient', username: sn },
          { command: 'deleteRole', rolename: roleOf(sn) },
        ],
        'Client not found',
        'Role not found',
      );
    },

    async grantPlatform(username) {
      await run(
        [
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
        ],
        'Role already exists',
      );
      const granted = async () => {
        const [account] = await run([{ command: 'getClient', username }]);
        return ((account!.data as { client?: { roles?: { rolename: string }[] } }).client?.roles ?? []).some(
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
