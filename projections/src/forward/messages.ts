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

type Piece = string | { name: string; hole: string };
/** A template cut once into its text and its holes, so that a message only joins them. */
function piecesOf(template: string): Piece[] {
  const pieces: Piece[] = [];
  let at = 0;
  for (const match of template.matchAll(holes)) {
    if (match.index > at) pieces.push(template.slice(at, match.index));
    pieces.push({ name: match[1]!, hole: match[0] });
    at = match.index + match[0].length;
  }
  if (at < template.length) pieces.push(template.slice(at));
  return pieces;
}
const joined = (pieces: readonly Piece[], fill: (piece: { name: string; hole: string }) => string) => {
  let text = '';
  for (const piece of pieces) text += typeof piece === 'string' ? piece : fill(piece);
  return text;
};

/** The body a rule sends: its template with the message's values (`values` and `payload` as JSON), or the message as JSON. */
export function compilePayload(template: string | null): (m: ForwardMessage) => string {
  if (!template)
    return (m) => {
      const ts = m.ts.toISOString();
      return JSON.stringify(
        m.type === 'event'
          ? { deviceId: m.deviceId, productId: m.productId, type: m.type, ts, identifier: m.identifier, payload: m.payload ?? null }
          : { deviceId: m.deviceId, productId: m.productId, type: m.type, ts, values: m.values ?? {} },
      );
    };
  const pieces = piecesOf(template);
  return (m) =>
    joined(pieces, ({ name, hole }) => {
      switch (name) {
        case 'values':
          return JSON.stringify(m.values ?? {});
        case 'payload':
          return JSON.stringify(m.payload ?? null);
        case 'deviceId':
        case 'productId':
        case 'type':
          return inString(m[name]);
        case 'ts':
          return inString(m.ts.toISOString());
        case 'identifier':
          return inString(m.identifier ?? '');
        default:
          return hole;
      }
    });
}

/** The topic an MQTT target publishes a message on (no wildcard can come of it: the ids hold none, a rule's topic was checked). */
export function compileTopic(topic: string | null): (m: ForwardMessage) => string {
  const pieces = piecesOf(topic ?? defaultForwardTopic);
  return (m) =>
    joined(pieces, ({ name, hole }) =>
      name === 'deviceId' || name === 'productId' || name === 'type' ? m[name].replace(/[+#]/g, '_') : hole,
    );
}

/** Templates compiled once each (rules and chain nodes are few; past the bound all are compiled again). */
const compiled = new Map<string, (m: ForwardMessage) => string>();
function cached(kind: 'payload' | 'topic', template: string | null) {
  const key = `${kind}\0${template ?? '\0'}`;
  let render = compiled.get(key);
  if (!render) {
    if (compiled.size >= 1_000) compiled.clear();
    render = kind === 'payload' ? compilePayload(template) : compileTopic(template);
    compiled.set(key, render);
  }
  return render;
}

export const renderPayload = (template: string | null, m: ForwardMessage): string => cached('payload', template)(m);
export const renderTopic = (topic: string | null, m: ForwardMessage): string => cached('topic', topic)(m);
