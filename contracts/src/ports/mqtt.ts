/**
 * MQTT as the platform sees it: messages from devices in, downlink out (ARCHITECTURE.md "Ports and adapters").
 * Adapters in `infra/src/mqtt/`: `embedded.ts` (Aedes inside the process, `MQTT_PORT`) and `client.ts` (external broker, `MQTT_URL`).
 * Checked by tests/contracts/mqtt.int.test.ts.
 */

export interface MqttMessage {
  topic: string;
  payload: Uint8Array;
  qos: 0 | 1 | 2;
  retain: boolean;
  /** The publishing device's client id where the broker tells it (embedded); undefined over an external broker. */
  clientId?: string;
  /** Which connection of that client id (a newer one takes the id over): embedded only. */
  connectionId?: number;
  /** Settles once the same connection's earlier messages are handled: embedded only. */
  before?: Promise<unknown>;
  /** The QoS 1/2 packet id on the connection it came in on (a resent message keeps its id). */
  messageId?: number;
  /** MQTT's DUP flag: the sender may have sent this message before (a resend after a lost PUBACK). */
  dup?: boolean;
}

/**
 * A handler's word that it did not take a message (kept as a dead letter): the publish is still acknowledged and the
 * device stays connected; an MQTT 5 device reads why in its PUBACK (`topic` 0x90, `payload` 0x99).
 */
export interface MqttRefusal {
  refused: 'topic' | 'payload';
}

/** Handles one device message; the broker acknowledges a QoS 1/2 publish only once this resolves. */
export type MqttHandler = (message: MqttMessage) => void | MqttRefusal | Promise<void | MqttRefusal>;

export interface PublishOptions {
  qos?: 0 | 1 | 2;
  retain?: boolean;
}

export interface OnMessageOptions {
  /**
   * External broker: false subscribes this process alone (not through the shared group), so it gets every
   * matching message, as well as whichever process the shared subscription hands it to. The embedded broker
   * delivers every message to its own process anyway.
   */
  shared?: boolean;
}

export interface MqttHandlerRegistration {
  /** Stops delivering to this handler (and drops the broker subscription). */
  off(): Promise<void>;
}

export interface MqttPort {
  /**
   * Receives device messages whose topic matches `topicFilter` (`+` and `#` wildcards). Over an
   * external broker the subscription is shared (`$share/<group>/<filter>`): each message reaches one platform instance.
   */
  onMessage(topicFilter: string, handler: MqttHandler, options?: OnMessageOptions): Promise<MqttHandlerRegistration>;
  /** Sends a downlink message to whichever devices subscribe to `topic`; resolves once the broker has it. */
  publish(topic: string, payload: Uint8Array | string | object, options?: PublishOptions): Promise<void>;
  /**
   * Sends to one connected client only, whatever it subscribed to: ThingsBoard's `v1/devices/me/...` downlink
   * names no device, so it can go only to the device's own connection. Embedded only; false when not connected.
   */
  publishTo?(clientId: string, topic: string, payload: Uint8Array | string | object, options?: PublishOptions): Promise<boolean>;
  /**
   * Ends one client's connection now (its right to it is gone: device disabled, deleted, re-keyed, tenant stopped).
   * Embedded only (an external broker's sessions are cut by its own API); false when not connected.
   */
  disconnect?(clientId: string): Promise<boolean>;
  health(): Promise<{ ok: boolean; detail?: string }>;
  close(): Promise<void>;
}

export type MqttAdmission = boolean | { clientId: string };

/** Who is connecting or acting, as the auth hooks see it. */
export interface MqttClientInfo {
  clientId: string;
  username?: string;
  /** Tells apart two connections with one client id (the newer takes over); embedded only. */
  connectionId?: number;
}

/**
 * The platform's device auth, plugged into the broker. Each hook answers allow (true) or deny (false);
 * every hook defaults to allow. The embedded broker calls them directly; an external broker reaches
 * them through its HTTP auth plugin (a later issue).
 */
export interface MqttAuthHooks {
  /**
   * Allow (true, or the client id the broker keeps this connection under: the embedded broker namespaces a
   * device's client id by the device, so that no other device can take it over) or deny (false).
   */
  authenticate?: (client: MqttClientInfo, password: Uint8Array | undefined) => MqttAdmission | Promise<MqttAdmission>;
  authorizePublish?: (client: MqttClientInfo, topic: string, payload: Uint8Array) => boolean | Promise<boolean>;
  authorizeSubscribe?: (client: MqttClientInfo, topicFilter: string) => boolean | Promise<boolean>;
}

/** Whether an MQTT topic matches a filter: `+` is one level, a trailing `#` any number (zero included). */
export function matchesTopicFilter(filter: string, topic: string): boolean {
  // Wildcards never match topics starting with '$' (MQTT 3.1.1 §4.7.2).
  if (topic.startsWith('$') && (filter.startsWith('+') || filter.startsWith('#'))) return false;
  const f = filter.split('/');
  const t = topic.split('/');
  for (let i = 0; i < f.length; i++) {
    if (f[i] === '#') return i === f.length - 1;
    if (i >= t.length) return false;
    if (f[i] !== '+' && f[i] !== t[i]) return false;
  }
  return f.length === t.length;
}
