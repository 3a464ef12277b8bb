/**
 * The MQTT topic scheme (README "MQTT topics"). A device names itself by SN; a gateway publishes for its
 * sub-devices; ThingsBoard firmware keeps its own topics (`me` is the connected device).
 */
export type Uplink =
  | { kind: 'telemetry' | 'attributes'; sn: string | null }
  | { kind: 'event'; sn: string | null; identifier: string }
  | { kind: 'reply'; sn: string | null; messageId: string }
  | { kind: 'gatewayTelemetry'; sn: string | null; style: 'native' | 'thingsboard' }
  | { kind: 'gatewayConnect' | 'gatewayDisconnect'; sn: string | null }
  /** A ThingsBoard gateway's answer to a server-side RPC for one of its devices (`v1/gateway/rpc`). */
  | { kind: 'gatewayReply'; sn: string | null }
  /** A gateway's answer to a command for one of its sub-devices (`gateways/{sn}/reply/{messageId}`, the sub-device named inside). */
  | { kind: 'subReply'; sn: string; messageId: string }
  /** Raw bytes of a DTU-style device for the operator relaying them (pass-through). */
  | { kind: 'passthrough'; sn: string }
  /** ThingsBoard's client-side requests, answered to the asking session (ingest/src/thingsboard.ts). */
  | { kind: 'rpcRequest' | 'attributesRequest'; sn: null; requestId: string }
  | { kind: 'gatewayAttributesRequest'; sn: null }
  /** A device's report of its upgrade in a rollout (ingest/src/ota/progress.ts). */
  | { kind: 'otaProgress'; sn: string; taskId: string }
  /** ThingsBoard's OTA client asking for chunk `chunk` of its firmware (`v2/fw/request/{requestId}/chunk/{n}`), answered to its session. */
  | { kind: 'fwChunkRequest'; sn: null; requestId: string; chunk: number };

/** `sn` null: the connected client itself (ThingsBoard's `me`, or its gateway). */
export function parseUplink(topic: string): Uplink | null {
  const t = topic.split('/');
  if (t[0] === 'devices' && t.length >= 3 && t[1]) {
    const sn = t[1];
    if (t.length === 3 && (t[2] === 'telemetry' || t[2] === 'attributes')) return { kind: t[2], sn };
    if (t.length === 4 && t[2] === 'events' && t[3]) return { kind: 'event', sn, identifier: t[3] };
    if (t.length === 4 && t[2] === 'reply' && t[3]) return { kind: 'reply', sn, messageId: t[3] };
    if (t.length === 4 && t[2] === 'passthrough' && t[3] === 'up') return { kind: 'passthrough', sn };
    if (t.length === 5 && t[2] === 'ota' && t[3] && t[4] === 'progress') return { kind: 'otaProgress', sn, taskId: t[3] };
    return null;
  }
  if (t[0] === 'gateways' && t.length === 3 && t[1] && t[2] === 'telemetry') return { kind: 'gatewayTelemetry', sn: t[1], style: 'native' };
  if (t[0] === 'gateways' && t.length === 4 && t[1] && t[2] === 'reply' && t[3]) return { kind: 'subReply', sn: t[1], messageId: t[3] };
  if (t[0] === 'v1' && t[1] === 'devices' && t[2] === 'me') {
    if (t.length === 4 && (t[3] === 'telemetry' || t[3] === 'attributes')) return { kind: t[3], sn: null };
    if (t.length === 6 && t[3] === 'rpc' && t[4] === 'response' && t[5]) return { kind: 'reply', sn: null, messageId: t[5] };
    if (t.length === 6 && t[3] === 'rpc' && t[4] === 'request' && t[5]) return { kind: 'rpcRequest', sn: null, requestId: t[5] };
    if (t.length === 6 && t[3] === 'attributes' && t[4] === 'request' && t[5])
      return { kind: 'attributesRequest', sn: null, requestId: t[5] };
    return null;
  }
  if (t[0] === 'v1' && t[1] === 'gateway' && t.length === 3) {
    if (t[2] === 'telemetry' || t[2] === 'attributes') return { kind: 'gatewayTelemetry', sn: null, style: 'thingsboard' };
    if (t[2] === 'connect') return { kind: 'gatewayConnect', sn: null };
    if (t[2] === 'disconnect') return { kind: 'gatewayDisconnect', sn: null };
    if (t[2] === 'rpc') return { kind: 'gatewayReply', sn: null };
  }
  if (topic === 'v1/gateway/attributes/request') return { kind: 'gatewayAttributesRequest', sn: null };
  if (t[0] === 'v2' && t[1] === 'fw' && t[2] === 'request' && t.length === 6 && t[3] && t[4] === 'chunk' && /^\d{1,9}$/.test(t[5]!))
    return { kind: 'fwChunkRequest', sn: null, requestId: t[3], chunk: Number(t[5]) };
  return null;
}

/** A device publishes only on its own topics (a gateway for its sub-devices through its own); `me` is the device itself. */
export function mayPublishOn(sn: string, topic: string): boolean {
  const uplink = parseUplink(topic);
  return !!uplink && (uplink.sn === null || uplink.sn === sn);
}

/**
 * Every topic of the device doors (README "MQTT topics"), one row each: what a device may publish (`up`) or
 * subscribe to (`down`), with `{sn}` its own SN and `{id}` any one level. `device: 'gateway'` rows are a gateway's
 * only. `names: 'session'` topics name no device (ThingsBoard's `me` and gateway API): what a device publishes
 * there is consumed by the platform, and what the platform sends there goes to that one session (`publishTo`),
 * never through the broker's fan-out. The security walk (tests/security/mqtt-topics.int.test.ts) iterates it.
 */
export interface TopicRow {
  direction: 'up' | 'down';
  topic: string;
  device: 'any' | 'gateway';
  names: 'device' | 'session';
}
export const topicTable: readonly TopicRow[] = [
  { direction: 'up', topic: 'devices/{sn}/telemetry', device: 'any', names: 'device' },
  { direction: 'up', topic: 'devices/{sn}/attributes', device: 'any', names: 'device' },
  { direction: 'up', topic: 'devices/{sn}/events/{id}', device: 'any', names: 'device' },
  { direction: 'up', topic: 'devices/{sn}/reply/{id}', device: 'any', names: 'device' },
  { direction: 'up', topic: 'devices/{sn}/passthrough/up', device: 'any', names: 'device' },
  { direction: 'up', topic: 'devices/{sn}/ota/{id}/progress', device: 'any', names: 'device' },
  { direction: 'up', topic: 'gateways/{sn}/telemetry', device: 'gateway', names: 'device' },
  { direction: 'up', topic: 'gateways/{sn}/reply/{id}', device: 'gateway', names: 'device' },
  { direction: 'up', topic: 'v1/devices/me/telemetry', device: 'any', names: 'session' },
  { direction: 'up', topic: 'v1/devices/me/attributes', device: 'any', names: 'session' },
  { direction: 'up', topic: 'v1/devices/me/rpc/response/{id}', device: 'any', names: 'session' },
  { direction: 'up', topic: 'v1/devices/me/rpc/request/{id}', device: 'any', names: 'session' },
  { direction: 'up', topic: 'v1/devices/me/attributes/request/{id}', device: 'any', names: 'session' },
  { direction: 'up', topic: 'v1/gateway/telemetry', device: 'gateway', names: 'session' },
  { direction: 'up', topic: 'v1/gateway/attributes', device: 'gateway', names: 'session' },
  { direction: 'up', topic: 'v1/gateway/connect', device: 'gateway', names: 'session' },
  { direction: 'up', topic: 'v1/gateway/disconnect', device: 'gateway', names: 'session' },
  { direction: 'up', topic: 'v1/gateway/rpc', device: 'gateway', names: 'session' },
  { direction: 'up', topic: 'v1/gateway/attributes/request', device: 'gateway', names: 'session' },
  { direction: 'up', topic: 'v2/fw/request/{id}/chunk/{n}', device: 'any', names: 'session' },
  { direction: 'down', topic: 'devices/{sn}/command/{id}', device: 'any', names: 'device' },
  { direction: 'down', topic: 'devices/{sn}/passthrough/down', device: 'any', names: 'device' },
  { direction: 'down', topic: 'gateways/{sn}/command/{id}', device: 'gateway', names: 'device' },
  { direction: 'down', topic: 'v1/devices/me/rpc/request/{id}', device: 'any', names: 'session' },
  { direction: 'down', topic: 'v1/devices/me/attributes', device: 'any', names: 'session' },
  { direction: 'down', topic: 'v1/devices/me/attributes/response/{id}', device: 'any', names: 'session' },
  { direction: 'down', topic: 'v1/devices/me/rpc/response/{id}', device: 'any', names: 'session' },
  { direction: 'down', topic: 'v1/gateway/rpc', device: 'gateway', names: 'session' },
  { direction: 'down', topic: 'v1/gateway/attributes', device: 'gateway', names: 'session' },
  { direction: 'down', topic: 'v1/gateway/attributes/response', device: 'gateway', names: 'session' },
  { direction: 'down', topic: 'v2/fw/response/{id}/chunk/{n}', device: 'any', names: 'session' },
];

/**
 * What an ingest process subscribes to on an external broker: the uplink topics that name their device. The
 * ThingsBoard topics (`me`) name none, and such a broker does not say who published: embedded broker only.
 */
export const uplinkFilters = topicTable
  .filter((r) => r.direction === 'up' && r.names === 'device')
  .map((r) => r.topic.replace('{sn}', '+').replace('{id}', '+').replace('{n}', '+'));

/** A row's topic for one device, `{id}` filled (`+` for a subscription filter), and a chunk number `{n}` (`0`; `+` in a filter). */
export const topicOf = (row: TopicRow, sn: string, id = '+') =>
  row.topic
    .replace('{sn}', sn)
    .replace('{id}', id)
    .replace('{n}', id === '+' ? '+' : '0');

/** Whether a topic names no device (ThingsBoard's `me` and gateway topics): the platform talks there to one session only. */
export const namesNoDevice = (topic: string) => topic.startsWith('v1/') || topic.startsWith('v2/');

/** What a device may subscribe to: its own downlink (a gateway's too for a gateway, ThingsBoard's gateway API included). */
export function downlinkFilters(sn: string, nodeType?: string): string[] {
  const rows = topicTable.filter((r) => r.direction === 'down' && (r.device === 'any' || nodeType === 'gateway'));
  return [...rows.map((r) => topicOf(r, sn)), `devices/${sn}/command/#`];
}

/** The topic a command to a device goes out on (the device's own scheme decides which it listens to). */
export const commandTopic = (sn: string, messageId: string) => `devices/${sn}/command/${messageId}`;

/** ThingsBoard's device MQTT API: a server-side RPC goes out on its request topic, the device answers on `.../response/{id}`. */
export const rpcRequestTopic = (requestId: number) => `v1/devices/me/rpc/request/${requestId}`;
/** ThingsBoard's shared-attribute update: how a property set reaches ThingsBoard firmware. */
export const TB_ATTRIBUTES_TOPIC = 'v1/devices/me/attributes';
/** ThingsBoard's gateway API: RPC to a gateway's devices, and their answers, on one topic. */
export const TB_GATEWAY_RPC_TOPIC = 'v1/gateway/rpc';
export const TB_GATEWAY_ATTRIBUTES_TOPIC = 'v1/gateway/attributes';
/** Pass-through: the raw bytes an operator sends a DTU-style device (it answers on `devices/<sn>/passthrough/up`). */
export const passthroughDownTopic = (sn: string) => `devices/${sn}/passthrough/down`;
/** A command to a sub-device, through its gateway's own downlink (the payload names the sub-device by `sn`). */
export const gatewayCommandTopic = (gatewaySn: string, messageId: string) => `gateways/${gatewaySn}/command/${messageId}`;
/** Where a device answers a command (a gateway answers for its sub-devices on its own). */
export const replyTopic = (sn: string, messageId: string) => `devices/${sn}/reply/${messageId}`;
export const gatewayReplyTopic = (gatewaySn: string, messageId: string) => `gateways/${gatewaySn}/reply/${messageId}`;

/** ThingsBoard's firmware chunk answer, to the asking session: the chunk's bytes. */
export const fwChunkResponseTopic = (requestId: string, chunk: number) => `v2/fw/response/${requestId}/chunk/${chunk}`;
