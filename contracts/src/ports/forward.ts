/**
 * The forwarding targets' side of the platform (issue 19): MQTT brokers a tenant forwards to, reached through an
 * adapter in infra/ (the `mqtt` client), every host checked by the outbound guard as an HTTP target's URL is.
 * Failures reject with an `OutboundFailure` (ports/outbound-http.ts): a class the tenant may see.
 */
export interface MqttTarget {
  /** A key that changes when the configuration does: a connection kept for it is reused until then. */
  key: string;
  host: string;
  port: number;
  tls: boolean;
  username: string | null;
  password: string | null;
  clientId: string | null;
}
export interface ForwardMqttMessage {
  topic: string;
  payload: string;
}

export interface ForwardMqtt {
  /** Publishes in order at QoS 1: resolves once the broker acknowledged every message. */
  publish(target: MqttTarget, messages: readonly ForwardMqttMessage[]): Promise<void>;
  /** Connects and logs in as configured, then disconnects: resolves when the broker let it in. */
  test(target: MqttTarget): Promise<void>;
  close(): Promise<void>;
}

/** What the forwarding routes ask of the process they run in. */
export interface Forwarding {
  mqtt: ForwardMqtt;
  /** The ports the platform listens on (its API, its broker): a target on one of them on this host would forward into itself. */
  localPorts: readonly number[];
  /** Sends the tenant's dead letters among `ids` again (the outbox is operational state, not events); answers how many. */
  retryDeadLetters(tenantId: string, ids: readonly string[]): Promise<number>;
}
