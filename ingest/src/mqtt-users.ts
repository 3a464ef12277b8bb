import { topicMatches, deviceTopicRoots, type MqttAccess, type MqttAclEvent, type MqttUserEvent } from '@iot/contracts';
import type { MqttAdmission, MqttClientInfo } from '@iot/contracts/ports/mqtt.ts';
import type { MqttUserDirectory } from '@iot/contracts/ports/mqtt-users.ts';
import { textOf } from './payload.ts';

/** How long a session's topic rules are kept before they are read again (a changed rule also clears them at once). */
const ACL_TTL_MS = 5_000;

/** The events that change what an MQTT user's sessions may do. */
export const mqttUserAuthEvents = [
  'MqttUserPasswordChanged',
  'MqttUserDeleted',
  'MqttAclCreated',
  'MqttAclUpdated',
  'MqttAclDeleted',
] as const satisfies ReadonlyArray<(MqttUserEvent | MqttAclEvent)['type']>;

/**
 * MQTT users (issue 19): third-party clients of the embedded broker, let in by username and password (argon2id,
 * beside the platform's other credentials), each session under a client id of its own namespace (no device's can be
 * taken), publishing and subscribing only where its topic rules grant it, never on the devices' topics. Their
 * messages are not the platform's telemetry: they go to the other MQTT users' subscriptions only.
 */
export function createMqttUserAuth(directory: MqttUserDirectory) {
  type Session = { userId: string; tenantId: string; connectionId: number | undefined };
  const sessions = new Map<string, Session>();
  /**
   * Sessions whose client disconnected, for what it published before (the broker asks about the messages of one read
   * side by side, after the DISCONNECT of that read has ended the session): published and forwarded still, nothing more.
   */
  const ended = new Map<string, Session>();
  const sessionFor = (clientId: string) => sessions.get(clientId) ?? ended.get(clientId);
  const rules = new Map<string, { at: number; acls: Promise<{ topic: string; access: MqttAccess }[]> }>();

  function aclsOf(userId: string) {
    const cached = rules.get(userId);
    if (cached && Date.now() - cached.at < ACL_TTL_MS) return cached.acls;
    const acls = directory.aclsOf(userId);
    rules.set(userId, { at: Date.now(), acls });
    acls.catch(() => rules.delete(userId));
    return acls;
  }
  const onDeviceTopic = (topic: string) => (deviceTopicRoots as readonly string[]).includes(topic.split('/')[0]!) || /^[+#$]/.test(topic);
  async function granted(clientId: string, topic: string, want: 'publish' | 'subscribe') {
    const session = want === 'publish' ? sessionFor(clientId) : sessions.get(clientId);
    if (!session || onDeviceTopic(topic)) return false;
    return (await aclsOf(session.userId)).some((a) => (a.access === want || a.access === 'both') && topicMatches(a.topic, topic));
  }

  let disconnect: ((clientId: string) => Promise<unknown>) | undefined;

  return {
    /** An MQTT user's login: null when the username is no MQTT user's (a device's, for the intake to decide). */
    async authenticate(client: MqttClientInfo, password: Uint8Array | undefined): Promise<MqttAdmission | null> {
      if (!client.username) return null;
      const user = await directory.byUsername(client.username);
      if (!user) return null;
      if (!password || !(await directory.verifyPassword(user.id, textOf(password)))) return false;
      const clientId = `mqttuser/${user.id}/${client.clientId}`;
      ended.delete(clientId);
      sessions.set(clientId, { userId: user.id, tenantId: user.tenantId, connectionId: client.connectionId });
      return { clientId };
    },
    /** Whether a broker session is an MQTT user's (its messages are not telemetry). */
    owns: (clientId: string | undefined) => clientId !== undefined && sessionFor(clientId) !== undefined,
    /** The tenant of an MQTT user's session (the MQTT screen lists it with the tenant's clients). */
    tenantOf: (clientId: string) => sessionFor(clientId)?.tenantId,
    mayPublish: (clientId: string, topic: string) => granted(clientId, topic, 'publish'),
    maySubscribe: (clientId: string, filter: string) => granted(clientId, filter, 'subscribe'),
    disconnected(client: MqttClientInfo) {
      const session = sessions.get(client.clientId);
      if (!session || session.connectionId !== client.connectionId) return;
      sessions.delete(client.clientId);
      ended.set(client.clientId, session);
      if (ended.size > 10_000) ended.delete(ended.keys().next().value!);
    },
    /** How to cut a session (the broker's), once it is up. */
    cutWith(cut: (clientId: string) => Promise<unknown>) {
      disconnect = cut;
    },
    /** Topic rule changes apply at once; a changed password or a deleted user ends the user's sessions. */
    async apply(event: MqttUserEvent | MqttAclEvent) {
      if (event.type === 'MqttUserPasswordChanged' || event.type === 'MqttUserDeleted') {
        const userId = event.data.mqttUserId;
        rules.delete(userId);
        for (const [clientId, session] of ended) if (session.userId === userId) ended.delete(clientId);
        for (const [clientId, session] of sessions)
          if (session.userId === userId) {
            sessions.delete(clientId);
            await disconnect?.(clientId);
          }
        return;
      }
      if (event.type === 'MqttAclDeleted') rules.clear();
      else rules.delete(event.data.mqttUserId);
    },
  };
}
export type MqttUserAuth = ReturnType<typeof createMqttUserAuth>;
