/**
 * One process of the raw-socket MQTT load generator (forked by generator.ts, driven over IPC). It holds one
 * TCP connection per device it is given, writes pre-encoded QoS 1 PUBLISH frames on an open-loop schedule
 * (schedule.ts), matches PUBACKs by packet id and records, in HDR histograms (microseconds), publish-to-PUBACK
 * latency from the time each message was due and how late the generator itself wrote it.
 */
import net from 'node:net';
import {
  connackCode,
  connectFrame,
  disconnectFrame,
  FrameSplitter,
  PACKET,
  OtaProgressTemplate,
  PublishTemplate,
  readPuback,
  type ProtocolVersion,
} from './mqtt-frames.ts';
import { epochNow, RateSchedule } from './schedule.ts';
import type { GeneratorCommand, GeneratorReply, StepCommand } from './generator.ts';
import { encode, histogram, record } from './latency.ts';

/** Packet ids in use per connection at most (1…WINDOW, reused in turn); a message finding its id still in flight is not sent. */
const WINDOW = 4096;
/** Messages written per turn of the event loop at most, so that PUBACKs are read between turns. */
const MAX_PER_TICK = 4000;
/** Connections opened at once. */
const CONNECT_CONCURRENCY = 64;

interface Connection {
  socket: net.Socket;
  sn: string;
  template: PublishTemplate | OtaProgressTemplate;
  /** Messages written on this connection so far (an OTA report's percent follows from it). */
  seq: number;
  /** This step's due times of the messages written, in order, when the step keeps them (keepDues). */
  dues: number[];
  /** Due time (epoch ms) of the message in flight with packet id i + 1; 0 when that id is free. */
  dueAt: Float64Array;
  nextId: number;
  open: boolean;
}

let connections: Connection[] = [];
let protocolVersion: ProtocolVersion = 4;
let ack = histogram();
let sendLag = histogram();
let counters = { sent: 0, acked: 0, refused: 0, stray: 0, blocked: 0, failed: 0 };
let inflight = 0;
let keepDues = false;
let lastAckAt = 0;

const reply = (message: GeneratorReply) => process.send!(message);

/** A PUBACK read at `readAt` (epoch ms): its message's latency from the time it was due. */
function onPuback(connection: Connection, readAt: number, buffer: Buffer, bodyStart: number, end: number) {
  const { packetId, reasonCode } = readPuback(buffer, bodyStart, end);
  const due = connection.dueAt[packetId - 1];
  if (!due) {
    counters.stray += 1;
    return;
  }
  connection.dueAt[packetId - 1] = 0;
  inflight -= 1;
  if (reasonCode >= 0x80) {
    counters.refused += 1;
    return;
  }
  counters.acked += 1;
  lastAckAt = readAt;
  record(ack, readAt - due);
}

async function connectOne(
  url: URL,
  device: { sn: string; secret: string },
  vars: number,
  suffix: string,
  payload: 'telemetry' | 'ota-progress',
): Promise<Connection | number> {
  const socket = net.connect({ host: url.hostname, port: Number(url.port || 1883) });
  socket.setNoDelay(true);
  const connection: Connection = {
    socket,
    sn: device.sn,
    template:
      payload === 'ota-progress'
        ? new OtaProgressTemplate(`devices/${device.sn}/${suffix}`, protocolVersion)
        : new PublishTemplate(`devices/${device.sn}/${suffix}`, vars, protocolVersion),
    seq: 0,
    dues: [],
    dueAt: new Float64Array(WINDOW),
    nextId: 0,
    open: true,
  };
  return new Promise((resolve) => {
    let settled = false;
    const settle = (result: Connection | number) => {
      if (settled) return;
      settled = true;
      resolve(result);
    };
    // One clock reading per read: the PUBACKs in it arrived together.
    let readAt = 0;
    const splitter = new FrameSplitter((buffer, type, _flags, bodyStart, end) => {
      if (type === PACKET.connack) {
        const code = connackCode(buffer, bodyStart);
        if (code === 0) settle(connection);
        else {
          settle(code);
          socket.destroy();
        }
        return;
      }
      if (type === PACKET.puback) onPuback(connection, readAt, buffer, bodyStart, end);
    });
    socket.on('data', (chunk: Buffer) => {
      readAt = epochNow();
      splitter.push(chunk);
    });
    socket.on('error', () => settle(-1));
    socket.on('close', () => {
      connection.open = false;
      settle(-1);
    });
    socket.write(connectFrame({ clientId: `gen-${device.sn}`, username: device.sn, password: device.secret, protocolVersion }));
  });
}

async function connectAll(command: Extract<GeneratorCommand, { type: 'connect' }>) {
  protocolVersion = command.protocolVersion;
  const url = new URL(command.url);
  const results: (Connection | number)[] = new Array(command.devices.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(CONNECT_CONCURRENCY, command.devices.length) }, async () => {
      while (next < command.devices.length) {
        const i = next++;
        results[i] = await connectOne(url, command.devices[i]!, command.vars, command.suffix, command.payload ?? 'telemetry');
      }
    }),
  );
  connections = results.filter((r): r is Connection => typeof r !== 'number');
  const refused = results.filter((r): r is number => typeof r === 'number');
  reply({ type: 'connected', connected: connections.length, refused });
}

/** Runs one step: sends this process's share of the schedule, waits for the PUBACKs (up to drainMs after the last is due). */
async function step(command: StepCommand) {
  ack = histogram();
  sendLag = histogram();
  counters = { sent: 0, acked: 0, refused: 0, stray: 0, blocked: 0, failed: 0 };
  lastAckAt = 0;
  for (const connection of connections) connection.dues = [];
  keepDues = command.keepDues === true;
  const schedule = new RateSchedule(command.startAt, command.rate, command.total, command.lane, command.processes);
  // The ceiling run sends as fast as it can until the deadline, with a bounded number in flight (no unbounded buffers).
  const deadline = command.mode === 'ceiling' ? command.startAt + command.seconds * 1000 : Infinity;
  const devices = connections.length;
  let k = 0;
  await new Promise<void>((resolve) => {
    const tick = () => {
      const now = epochNow();
      if (now >= deadline) return resolve();
      let n = Math.min(schedule.dueBy(now) - k, MAX_PER_TICK);
      if (command.mode === 'ceiling') n = Math.min(n, command.maxInflight - inflight);
      if (n > 0) {
        send(schedule, k, n, now, devices);
        k += n;
      }
      if (k >= schedule.count) return resolve();
      if (command.mode === 'ceiling') {
        // At the in-flight bound: wait for PUBACKs without spinning (the sink shares the cores).
        if (inflight >= command.maxInflight) setTimeout(tick, 1);
        else setImmediate(tick);
        return;
      }
      // Never sooner than a millisecond: what fell due meanwhile goes in the next tick. A tick per message due
      // (setImmediate while the next one is less than 1 ms away) kept this process spinning on a core at any rate
      // above about 1,000 messages a second, a core the platform on the same machine then lacked (issue 23).
      setTimeout(tick, Math.max(1, schedule.dueAt(k) - epochNow()));
    };
    tick();
  });
  const drainUntil = Math.max(epochNow(), schedule.endAt) + command.drainMs;
  while (inflight > 0 && epochNow() < drainUntil) await new Promise((r) => setTimeout(r, 5));
  // Still not acknowledged: recorded as late as they are now (at least), and their ids freed.
  const now = epochNow();
  let unacked = 0;
  for (const connection of connections) {
    for (let i = 0; i < WINDOW; i++) {
      const due = connection.dueAt[i]!;
      if (due) {
        record(ack, now - due);
        connection.dueAt[i] = 0;
        unacked += 1;
      }
    }
  }
  inflight = 0;
  reply({
    type: 'stepped',
    ...counters,
    unacked,
    lastAckAt,
    ack: encode(ack),
    sendLag: encode(sendLag),
    ...(keepDues ? { dues: connections.map((c) => ({ sn: c.sn, dues: c.dues })) } : {}),
  });
}

/** Writes messages k…k+n-1 of the schedule, one write per connection, each stamped with its due time. */
function send(schedule: RateSchedule, k: number, n: number, now: number, devices: number) {
  const touched = n >= devices ? devices : n;
  for (let j = 0; j < touched; j++) {
    const c = (k + j) % devices;
    const connection = connections[c]!;
    // Messages m in [k, k+n) with m % devices === c: the first is k + j, then every `devices`.
    const count = Math.floor((n - 1 - j) / devices) + 1;
    if (!connection.open) {
      counters.failed += count;
      continue;
    }
    const out = Buffer.allocUnsafe(count * connection.template.length);
    let at = 0;
    for (let i = 0; i < count; i++) {
      const due = schedule.dueAt(k + j + i * devices);
      const slot = connection.nextId;
      if (connection.dueAt[slot]) {
        counters.blocked += 1;
        continue;
      }
      connection.nextId = (slot + 1) % WINDOW;
      connection.dueAt[slot] = due;
      inflight += 1;
      at = connection.template.fill(out, at, slot + 1, due, connection.seq);
      connection.seq += 1;
      if (keepDues) connection.dues.push(due);
      record(sendLag, now - due);
    }
    counters.sent += at / connection.template.length;
    if (at > 0) connection.socket.write(at === out.length ? out : out.subarray(0, at));
  }
}

async function disconnectAll() {
  const frame = disconnectFrame(protocolVersion);
  await Promise.all(
    connections.map(
      (connection) =>
        new Promise<void>((resolve) => {
          if (!connection.open) return resolve();
          connection.socket.once('close', () => resolve());
          connection.socket.end(frame);
        }),
    ),
  );
  connections = [];
  reply({ type: 'disconnected' });
}

process.on('message', (command: GeneratorCommand) => {
  if (command.type === 'connect') void connectAll(command);
  else if (command.type === 'step') void step(command);
  else if (command.type === 'disconnect') void disconnectAll();
  else if (command.type === 'exit') process.exit(0);
});
process.on('disconnect', () => process.exit(0));
reply({ type: 'ready' });
