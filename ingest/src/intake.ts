import { DomainError, type OtaReport } from '@iot/contracts';
import { createOtaReportReader, fwStateOf } from './ota/progress.ts';
import type { FirmwareChunks } from './ota/firmware.ts';
import type { TelemetryRow } from '@iot/contracts/ports/timeseries.ts';
import { gatewaySamplesOf, MalformedPayload, parseJson, samplesOf, textOf, type Sample } from './payload.ts';
import type { Presence } from './presence.ts';
import type { DeviceRef, DeviceRegistry } from './registry.ts';
import type { ThingsboardRequests } from './thingsboard.ts';
import { downlinkFilters, parseUplink, type Uplink } from './topics.ts';
import { validateSample, type Rejection } from './validate.ts';

/** A device message as the broker hands it over. */
export interface DeviceMessage {
  topic: string;
  payload: Uint8Array;
  qos: 0 | 1 | 2;
  /** The connected client, when the broker tells it (embedded). */
  clientId?: string;
  /** Settles once the session's earlier messages are handled (embedded): a request is answered after what came before it. */
  before?: Promise<unknown>;
  /** The QoS 1 packet id, and whether the sender may have sent the message before (MQTT DUP): see `messageKeyOf`. */
  messageId?: number;
  dup?: boolean;
}

/**
 * Names one QoS 1 message of one session (the session or, over an external broker, the platform's own, the topic,
 * the packet id and a hash of the payload): the device sends a message again under the same packet id until it is
 * acknowledged, and the payload's hash keeps a later message that reuses the id from matching an earlier one.
 */
export function messageKeyOf(message: DeviceMessage): string | undefined {
  if (message.messageId === undefined || message.qos === 0) return undefined;
  // FNV-1a, 32 bits: cheap, and with the length, the session, topic and packet id a collision is out of reach.
  let hash = 0x811c9dc5;
  const bytes = message.payload;
  for (let i = 0; i < bytes.length; i++) hash = Math.imul(hash ^ bytes[i]!, 0x01000193);
  return `${message.clientId ?? ''}|${message.topic}|${message.messageId}|${bytes.length}.${(hash >>> 0).toString(36)}`;
}

/** A message the intake did not take (kept as a dead letter): acknowledged all the same, an MQTT 5 device told why. */
export interface Refusal {
  refused: 'topic' | 'payload';
}

/**
 * A device's client ids are its own: the broker keeps a connection under the device's id and the client id it
 * chose, so another device (of any tenant) reusing that client id opens a session of its own and takes nothing over.
 */
export const sessionIdOf = (deviceId: string, clientId: string) => `${deviceId}/${clientId}`;

/** A session's message that arrives after its device lost the right to it (disabled, deleted, re-keyed, tenant stopped): refused, not acknowledged. */
export class SessionEnded extends Error {
  constructor(topic: string) {
    super(`session ended: ${topic.slice(0, 256)}`);
  }
}

/** A connection of a client id: a newer connection with the same id takes the id over. */
interface Session {
  device: DeviceRef;
  connectionId: number;
  /** Connected with a ThingsBoard access token (no password): its downlink is ThingsBoard's RPC and attribute topics. */
  thingsboard: boolean;
}

/** Where accepted rows go: resolves once they are durable (inserted, or acknowledged by Kafka). */
export interface TelemetrySink {
  /** `key` names the MQTT message the rows came from (`messageKeyOf`), for a sink that journals them. */
  write(rows: TelemetryRow[], key?: string): Promise<void>;
  /** A message with this key is stored already: its resend is acknowledged without storing it again (TelemetryJournal.holds). */
  holds?(key: string, dup: boolean): boolean;
}

/** A message the intake could not take, kept for operators (issue 11 "dead letters"). */
export interface DeadLetter {
  tenantId: string | null;
  deviceId: string | null;
  sn: string | null;
  topic: string;
  reason: string;
  payload: string;
  at: Date;
}

export interface IntakeCounters {
  messages: number;
  rows: number;
  rejectedValues: number;
  deadLetters: number;
  qos0: number;
}

export interface IntakeOptions {
  registry: DeviceRegistry;
  sink: TelemetrySink;
  deadLetters(letter: DeadLetter): void;
  presence?: Presence;
  /** Thing-model events and replies, for the reactors (alarms) and command correlation. */
  onEvent?(device: DeviceRef, identifier: string, payload: unknown, ts: Date): void;
  onReply?(device: DeviceRef, messageId: string, payload: unknown): void;
  /** A device authenticated, and a device subscribed to its downlink (desired values are re-sent then). */
  onConnect?(device: DeviceRef): void;
  onSubscribe?(device: DeviceRef, filter: string): void;
  /** A connection of the device ended. */
  onDisconnect?(device: DeviceRef): void;
  /**
   * A device's report of its upgrade: on its OTA topic (task named), or ThingsBoard's `fw_state` telemetry (task null).
   * The message is acknowledged once this settles; a rejection leaves it unacknowledged, for the device to send again.
   */
  onOtaProgress?(device: DeviceRef, taskId: string | null, report: OtaReport): void | Promise<void>;
  /** ThingsBoard's firmware chunk requests (embedded broker: the chunk goes to the asking session). */
  firmware?: FirmwareChunks;
  /** Raw bytes from a DTU-style device (pass-through), not parsed. */
  onPassthrough?(device: DeviceRef, bytes: Uint8Array): void;
  /** ThingsBoard's client-side RPC and attribute requests (embedded broker: the answer goes to the asking session). */
  thingsboard?: ThingsboardRequests;
  /** Per device, the newest report time (device list "last report"). */
  onReport?(device: DeviceRef, ts: Date): void;
  /** Accepted rows, once durable: the live feed. */
  onStored?(device: DeviceRef, rows: TelemetryRow[]): void;
  maxPayloadBytes?: number;
  now?: () => number;
}

const DEAD_LETTER_BYTES = 4096;
/** The largest payload the intake takes unless told otherwise (ThingsBoard clients read it from `getSessionLimits`). */
export const DEFAULT_MAX_PAYLOAD_BYTES = 256 * 1024;

/**
 * What happens to a device message (ARCHITECTURE.md `ingest/`): whose it is, whether the topic is its own,
 * whether each value fits the thing model it reports against; good values go to the sink, a malformed message
 * to the dead letters. Nothing a device sends can throw out of `handle`.
 */
export function createIntake(options: IntakeOptions) {
  const { registry, sink } = options;
  const maxBytes = options.maxPayloadBytes ?? DEFAULT_MAX_PAYLOAD_BYTES;
  const otaReportOfText = createOtaReportReader();
  const now = options.now ?? Date.now;
  /** Connected clients by client id: the device each authenticated as. */
  const sessions = new Map<string, Session>();
  /** The client ids of each device's sessions: a downlink finds its device's session without a scan of every session. */
  const clientIdsOf = new Map<string, Set<string>>();
  const keepSession = (clientId: string, session: Session) => {
    dropSession(clientId);
    sessions.set(clientId, session);
    let ids = clientIdsOf.get(session.device.deviceId);
    if (!ids) clientIdsOf.set(session.device.deviceId, (ids = new Set()));
    ids.add(clientId);
  };
  const dropSession = (clientId: string) => {
    const session = sessions.get(clientId);
    if (!session) return;
    sessions.delete(clientId);
    const ids = clientIdsOf.get(session.device.deviceId);
    ids?.delete(clientId);
    if (ids?.size === 0) clientIdsOf.delete(session.device.deviceId);
  };
  const sessionsOfDevice = function* (deviceId: string) {
    for (const clientId of clientIdsOf.get(deviceId) ?? []) yield [clientId, sessions.get(clientId)!] as const;
  };
  /**
   * Sessions that ended normally (the device disconnected), for the messages it sent before and the broker still
   * handles: those are taken (a device publishing and disconnecting at once loses nothing). A cut session is not here.
   */
  const closed = new Map<string, Session>();
  const sessionFor = (clientId: string) => sessions.get(clientId) ?? closed.get(clientId);
  const deviceOf = (clientId: string | undefined) => (clientId ? sessions.get(clientId)?.device : undefined);
  const counters: IntakeCounters = { messages: 0, rows: 0, rejectedValues: 0, deadLetters: 0, qos0: 0 };
  /**
   * Topics as parsed, by topic: a device publishes on the same few topics all day, and each message's topic is read
   * twice (may it publish there, what is it). Bounded: a client that makes up topics only empties it.
   */
  const uplinks = new Map<string, Uplink | null>();
  const uplinkOf = (topic: string): Uplink | null => {
    let uplink = uplinks.get(topic);
    if (uplink === undefined) {
      if (uplinks.size >= 10_000) uplinks.clear();
      uplinks.set(topic, (uplink = parseUplink(topic)));
    }
    return uplink;
  };

  const dead = (device: DeviceRef | null, message: DeviceMessage, reason: string) => {
    counters.deadLetters += 1;
    options.deadLetters({
      tenantId: device?.tenantId ?? null,
      deviceId: device?.deviceId ?? null,
      sn: device?.sn ?? null,
      topic: message.topic.slice(0, 256),
      reason: reason.slice(0, 500),
      payload: textOf(message.payload.subarray(0, DEAD_LETTER_BYTES)),
      at: new Date(now()),
    });
  };

  async function rowsOf(device: DeviceRef, samples: Sample[]): Promise<{ rows: TelemetryRow[]; rejected: Rejection[] }> {
    return rowsWith(device, await registry.model(device), samples);
  }

  function rowsWith(
    device: DeviceRef,
    model: Awaited<ReturnType<DeviceRegistry['model']>>,
    samples: Sample[],
  ): { rows: TelemetryRow[]; rejected: Rejection[] } {
    // One sample a message is the common case: its arrays are the answer, not copied.
    if (samples.length === 1) return validateSample(device, model, samples[0]!);
    const rows: TelemetryRow[] = [];
    const rejected: Rejection[] = [];
    for (const sample of samples) {
      const checked = validateSample(device, model, sample);
      rows.push(...checked.rows);
      rejected.push(...checked.rejected);
    }
    return { rows, rejected };
  }

  async function take(device: DeviceRef, message: DeviceMessage, samples: Sample[]): Promise<TelemetryRow[]> {
    // The model awaited here, not through rowsOf: one async step less for every message.
    const { rows, rejected } = rowsWith(device, await registry.model(device), samples);
    counters.rejectedValues += rejected.length;
    if (rejected.length > 0) dead(device, message, `refused values: ${rejected.map((r) => `${r.identifier} (${r.reason})`).join(', ')}`);
    if (rows.length > 0) {
      let newest = rows[0]!.ts;
      for (let i = 1; i < rows.length; i++) if (rows[i]!.ts > newest) newest = rows[i]!.ts;
      options.onReport?.(device, newest);
      if (device.nodeType === 'subDevice' || !message.clientId) options.presence?.reported(device);
    }
    return rows;
  }

  return {
    counters,
    sessions,

    /**
     * The device a client may connect as, and the session id the broker keeps the connection under (its client id
     * within the device's own namespace); remembered for its messages.
     */
    async connect(
      clientId: string,
      connectionId: number,
      username: string | undefined,
      password: string | undefined,
    ): Promise<{ device: DeviceRef; sessionId: string } | null> {
      const device = await registry.authenticate(username, password);
      if (!device) return null;
      const sessionId = sessionIdOf(device.deviceId, clientId);
      closed.delete(sessionId);
      const before = sessions.get(sessionId);
      keepSession(sessionId, { device, connectionId, thingsboard: !password });
      options.presence?.connected(device);
      if (before) options.presence?.disconnected(before.device);
      options.onConnect?.(device);
      return { device, sessionId };
    },

    /**
     * The devices `lost` says lost their right to their sessions (disabled, deleted, re-keyed, tenant stopped): their
     * sessions end here at once (anything they still send is refused), and come back for the broker to disconnect.
     */
    cut(lost: (device: DeviceRef) => boolean): Array<{ sessionId: string; device: DeviceRef }> {
      const ended: Array<{ sessionId: string; device: DeviceRef }> = [];
      for (const [sessionId, session] of closed) if (lost(session.device)) closed.delete(sessionId);
      for (const [sessionId, session] of sessions) {
        if (!lost(session.device)) continue;
        dropSession(sessionId);
        ended.push({ sessionId, device: session.device });
        options.onDisconnect?.(session.device);
      }
      return ended;
    },

    /** A device changed in what its sessions carry (group, gateway, name, model version): they carry the change from now on. */
    update(deviceId: string, change: Partial<Pick<DeviceRef, 'groupId' | 'gatewayId' | 'name' | 'modelVersion'>>) {
      for (const [, session] of sessionsOfDevice(deviceId)) session.device = { ...session.device, ...change };
    },

    /** The end of one connection; a later connection that took the client id over stays. */
    disconnect(clientId: string, connectionId: number) {
      const session = sessions.get(clientId);
      if (!session || session.connectionId !== connectionId) return;
      dropSession(clientId);
      closed.set(clientId, session);
      if (closed.size > 10_000) closed.delete(closed.keys().next().value!);
      options.presence?.disconnected(session.device);
      options.onDisconnect?.(session.device);
    },

    /** The newest session of a device, with its client id (commands go to it). */
    sessionOf(deviceId: string): (Session & { clientId: string }) | null {
      let found: (Session & { clientId: string }) | null = null;
      for (const [clientId, session] of sessionsOfDevice(deviceId))
        if (!found || session.connectionId > found.connectionId) found = { ...session, clientId };
      return found;
    },

    /**
     * A device publishes only to its own topics (and a gateway to its sub-devices' through its own). A session that
     * ended normally still may, for what it sent before its DISCONNECT: the broker asks about the messages of one read
     * side by side, and may ask after the DISCONNECT of that same read has ended the session.
     */
    mayPublish(clientId: string, topic: string): boolean {
      const device = sessionFor(clientId)?.device;
      const uplink = uplinkOf(topic);
      if (!device) return false;
      // A topic of no scheme is taken and kept as a dead letter (refused in an MQTT 5 PUBACK), the device stays connected.
      if (!uplink) return true;
      return uplink.sn === null || uplink.sn === device.sn;
    },

    maySubscribe(clientId: string, filter: string): boolean {
      const device = deviceOf(clientId);
      if (!device || !downlinkFilters(device.sn, device.nodeType).includes(filter)) return false;
      options.onSubscribe?.(device, filter);
      return true;
    },

    /** Handles one message; resolves once its rows are durable (a QoS 1 publish is acknowledged then). */
    async handle(message: DeviceMessage): Promise<void | Refusal> {
      counters.messages += 1;
      if (message.qos === 0) counters.qos0 += 1;
      const entry = message.clientId === undefined ? undefined : sessionFor(message.clientId);
      // The session ended (its device lost the right to it) while the message was on its way: refused, unacknowledged.
      if (message.clientId !== undefined && !entry) throw new SessionEnded(message.topic);
      const session = entry?.device;
      const key = sink.holds ? messageKeyOf(message) : undefined;
      // A resend of a message stored before its PUBACK was lost (a crash, a dropped connection): acknowledged again, not stored again.
      if (key !== undefined && sink.holds!(key, message.dup ?? false)) return;
      const uplink = uplinkOf(message.topic);
      try {
        if (!uplink) return (dead(session ?? null, message, 'unknown topic'), { refused: 'topic' });
        const device = uplink.sn === null || (session && uplink.sn === session.sn) ? session : await registry.bySn(uplink.sn);
        if (!device) return dead(null, message, 'unknown or disabled device');
        if (uplink.kind === 'fwChunkRequest') {
          // The payload is the chunk size as text (ThingsBoard's client), not JSON.
          const size = Number(Buffer.from(message.payload).toString('utf8').trim() || '0');
          if (!options.firmware || !message.clientId)
            return dead(device, message, 'firmware chunks are served on the embedded broker only');
          if (!Number.isInteger(size) || size < 0) return (dead(device, message, 'not a chunk size'), { refused: 'payload' });
          return await options.firmware.chunk(device, message.clientId, uplink.requestId, uplink.chunk, size);
        }
        if (uplink.kind === 'passthrough') {
          if (message.payload.length > maxBytes) return dead(device, message, 'payload too large');
          return options.onPassthrough?.(device, message.payload);
        }
        if (uplink.kind === 'otaProgress') {
          // Read from its text, kept per distinct text (createOtaReportReader): the same few payloads, thousands a second.
          if (message.payload.length > maxBytes) throw new MalformedPayload(`payload over ${maxBytes} bytes`);
          const report = otaReportOfText(textOf(message.payload));
          if (report === false) throw new MalformedPayload('not JSON');
          if (!report) return (dead(device, message, 'not an OTA progress report'), { refused: 'payload' });
          return await options.onOtaProgress?.(device, uplink.taskId, report);
        }
        const body = parseJson(message.payload, maxBytes);
        const at = now();
        let rows: TelemetryRow[] = [];
        /** Each device's rows, for the live feed once they are stored (a gateway's message carries several devices). */
        const byDevice: Array<[DeviceRef, TelemetryRow[]]> = [];
        switch (uplink.kind) {
          case 'telemetry':
          case 'attributes': {
            // ThingsBoard's OTA client reports its firmware state as telemetry: progress of the running rollout, not a sample.
            const fw = uplink.kind === 'telemetry' ? fwStateOf(body) : null;
            if (fw) {
              await options.onOtaProgress?.(device, null, fw.report);
              if (Object.keys(fw.rest).length === 0) return;
            }
            // One device's rows: the answer itself, not copied.
            rows = await take(device, message, samplesOf(fw ? fw.rest : body, at));
            byDevice.push([device, rows]);
            break;
          }
          case 'gatewayTelemetry': {
            if (device.nodeType !== 'gateway') return dead(device, message, 'not a gateway');
            for (const [key, samples] of gatewaySamplesOf(body, at)) {
              const sub = await registry.subDevice(device, key);
              if (!sub) {
                dead(device, message, `${key.slice(0, 64)} is not a sub-device of this gateway`);
                continue;
              }
              const taken = await take(sub, message, samples);
              rows.push(...taken);
              byDevice.push([sub, taken]);
            }
            break;
          }
          case 'event':
            options.onEvent?.(device, uplink.identifier, body, new Date(at));
            return;
          case 'reply':
            options.onReply?.(device, uplink.messageId, body);
            return;
          case 'subReply': {
            const reply = (body ?? {}) as { sn?: unknown; output?: unknown };
            if (device.nodeType !== 'gateway' || typeof reply.sn !== 'string') return dead(device, message, 'not a sub-device reply');
            const sub = await registry.subDevice(device, reply.sn);
            if (!sub) return dead(device, message, `${reply.sn.slice(0, 64)} is not a sub-device of this gateway`);
            options.onReply?.(sub, uplink.messageId, reply.output ?? null);
            return;
          }
          case 'gatewayReply': {
            const reply = (body ?? {}) as { device?: unknown; id?: unknown; data?: unknown };
            if (device.nodeType !== 'gateway' || typeof reply.device !== 'string' || reply.id === undefined)
              return dead(device, message, 'not a gateway RPC reply');
            const sub = await registry.subDevice(device, reply.device);
            if (!sub) return dead(device, message, `${reply.device.slice(0, 64)} is not a sub-device of this gateway`);
            options.onReply?.(sub, String(reply.id), reply.data ?? null);
            return;
          }
          case 'rpcRequest':
          case 'attributesRequest':
          case 'gatewayAttributesRequest': {
            const requests = options.thingsboard;
            if (!requests || !message.clientId)
              return dead(device, message, 'ThingsBoard requests are answered on the embedded broker only');
            // Answered after what the session sent before it (an attribute request right after the attributes it asks for).
            await message.before;
            if (uplink.kind === 'rpcRequest') return await requests.rpc(device, message.clientId, uplink.requestId, body);
            if (uplink.kind === 'attributesRequest') return await requests.attributes(device, message.clientId, uplink.requestId, body);
            return await requests.gatewayAttributes(device, message.clientId, body, (gateway, key) => registry.subDevice(gateway, key));
          }
          case 'gatewayConnect':
          case 'gatewayDisconnect': {
            const key = typeof (body as { device?: unknown })?.device === 'string' ? (body as { device: string }).device : '';
            const sub = await registry.subDevice(device, key);
            if (sub && uplink.kind === 'gatewayConnect') options.presence?.connected(sub);
            if (sub && uplink.kind === 'gatewayDisconnect') options.presence?.disconnected(sub);
            return;
          }
        }
        counters.rows += rows.length;
        if (rows.length > 0) {
          if (entry && sessionFor(message.clientId!) !== entry) throw new SessionEnded(message.topic);
          await sink.write(rows, key);
          for (const [owner, own] of byDevice) if (own.length > 0) options.onStored?.(owner, own);
        }
      } catch (error) {
        if (error instanceof MalformedPayload) return (dead(session ?? null, message, error.message), { refused: 'payload' });
        throw error;
      }
    },

    /** The HTTP ingest route: the device named by its credentials posts its readings. */
    async handleHttp(device: DeviceRef, body: unknown): Promise<{ accepted: number; rejected: Rejection[] }> {
      // The body as the device's message, for a dead letter only: not serialised again for every good report.
      const message = (): DeviceMessage => ({
        topic: `devices/${device.sn}/telemetry`,
        payload: Buffer.from(JSON.stringify(body ?? null)),
        qos: 1,
      });
      let samples: Sample[];
      try {
        samples = samplesOf(body, now());
      } catch (error) {
        if (!(error instanceof MalformedPayload)) throw error;
        // The rule MQTT messages follow: a dead letter of the device, and the device told why (400).
        dead(device, message(), error.message);
        throw new DomainError('TELEMETRY_INVALID', { reason: error.message });
      }
      const { rows, rejected } = await rowsOf(device, samples);
      counters.rejectedValues += rejected.length;
      if (rejected.length > 0)
        dead(device, message(), `refused values: ${rejected.map((r) => `${r.identifier} (${r.reason})`).join(', ')}`);
      if (rows.length > 0) {
        options.onReport?.(device, rows[rows.length - 1]!.ts);
        options.presence?.reported(device);
        await sink.write(rows);
        // Stored: the reactors (alarm rules) and the live feed see HTTP reports as they see MQTT ones.
        options.onStored?.(device, rows);
      }
      counters.rows += rows.length;
      return { accepted: rows.length, rejected };
    },
  };
}
export type Intake = ReturnType<typeof createIntake>;
