import { defaultForwardTopic, type ForwardMessageType } from '@iot/contracts';

/** One message as a forwarding rule sends it: a device's readings at one time, or one event it reported. */
export interface ForwardMessage {
  deviceId: string;
  productId: string;
  type: ForwardMessageType;
  ts: Date;
  /** Telemetry: each variable's reading at `ts`. */
  values?: Record<string, number | string | null>;
  /** Event: its identifier and payload. */
  identifier?: string;
  payload?: unknown;
}

const holes = /\{\{\s*([^}\s]*)\s*\}\}/g;
/** Text inside a JSON string: a template such as `{"sn":"{{deviceId}}"}` stays JSON whatever the value. */
const inString = (text: string) => JSON.stringify(text).slice(1, -1);

/** The body a rule sends: its template with the message's values (`values` and `payload` as JSON), or the message as JSON. */
export function renderPayload(template: string | null, m: ForwardMessage): string {
  const ts = m.ts.toISOString();
  if (!template) {
    return JSON.stringify(
      m.type === 'event'
        ? { deviceId: m.deviceId, productId: m.productId, type: m.type, ts, identifier: m.identifier, payload: m.payload ?? null }
        : { deviceId: m.deviceId, productId: m.productId, type: m.type, ts, values: m.values ?? {} },
    );
  }
  const json = { values: JSON.stringify(m.values ?? {}), payload: JSON.stringify(m.payload ?? null) };
  const text: Record<string, string> = { deviceId: m.deviceId, productId: m.productId, type: m.type, ts, identifier: m.identifier ?? '' };
  return template.replace(holes, (hole, name: string) =>
    name === 'values' || name === 'payload' ? json[name] : name in text ? inString(text[name]!) : hole,
  );
}

/** The topic an MQTT target publishes a message on (no wildcard can come of it: the ids hold none, a rule's topic was checked). */
export function renderTopic(topic: string | null, m: ForwardMessage): string {
  const text: Record<string, string> = { deviceId: m.deviceId, productId: m.productId, type: m.type };
  return (topic ?? defaultForwardTopic).replace(holes, (hole, name: string) => (text[name] ?? hole).replace(/[+#]/g, '_'));
}
