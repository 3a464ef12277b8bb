import { spawn } from 'node:child_process';
import { connect, createServer, type Server, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import mqttPacket, { type Packet } from 'mqtt-packet';
import { afterEach, describe, expect, it } from 'vitest';
import { mqttFront } from './v5.ts';

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await new Promise((resolve) => server.close(resolve));
});

/** A broker that takes the connection and reads nothing until told (Aedes between two batches of packets). */
async function slowBroker() {
  let taken: (conn: Duplex) => void = () => undefined;
  const conn = new Promise<Duplex>((resolve) => (taken = resolve));
  let serverSocket: (socket: Socket) => void = () => undefined;
  const socket = new Promise<Socket>((resolve) => (serverSocket = resolve));
  const front = mqttFront({ closed: false, handle: (c) => taken(c as Duplex) });
  const server = createServer((s) => (serverSocket(s), front(s)));
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return { port, conn, socket };
}

/** What the broker reads from the bridge until it ends: the 3.1.1 packets. */
function readAll(conn: Duplex): Promise<string[]> {
  const parser = mqttPacket.parser({ protocolVersion: 4 });
  const packets: string[] = [];
  parser.on('packet', (p: Packet) => packets.push(p.cmd === 'publish' ? `publish ${p.topic} ${String(p.payload)}` : p.cmd));
  // A bridge that was destroyed with the connection has nothing left to read.
  if (conn.destroyed) return Promise.resolve(packets);
  conn.on('data', (chunk: Buffer) => parser.parse(chunk));
  return new Promise((resolve) => conn.once('close', () => resolve(packets)));
}

const v5 = (packet: object) => mqttPacket.generate(packet as Packet, { protocolVersion: 5 });

/**
 * A client at `protocolVersion` in its own process, so that its last bytes and its close reach this one while its event
 * loop is busy: it subscribes once the CONNACK comes, then sends a publish and DISCONNECT and closes at once (as paho
 * does). Answers what the broker read.
 */
async function busyWhileClientCloses(protocolVersion: 4 | 5): Promise<string[]> {
  const packet = (p: object) => mqttPacket.generate(p as Packet, { protocolVersion });
  const hex = (p: object) => packet(p).toString('hex');
  const client = `
    const socket = require('node:net').connect(Number(process.argv[1]), '127.0.0.1');
    const [connectPacket, subscribe, last] = process.argv.slice(2).map((h) => Buffer.from(h, 'hex'));
    socket.write(connectPacket);
    socket.once('data', () => {
      socket.write(subscribe);
      setTimeout(() => socket.end(last, () => socket.destroy()), 100);
    });`;
  let serverSocket: (socket: Socket) => void = () => undefined;
  const socket = new Promise<Socket>((resolve) => (serverSocket = resolve));
  const spin = (ms: number) => {
    for (const end = Date.now() + ms; Date.now() < end;);
  };
  const read: string[] = [];
  let closed: () => void = () => undefined;
  const bridgeClosed = new Promise<void>((resolve) => (closed = resolve));
  const front = mqttFront({
    closed: false,
    handle: (conn) => {
      const parser = mqttPacket.parser({ protocolVersion: 4 });
      parser.on('packet', (p: Packet) => {
        read.push(p.cmd === 'publish' ? `publish ${p.topic}` : p.cmd);
        if (p.cmd === 'connect') conn.write(mqttPacket.generate({ cmd: 'connack', returnCode: 0, sessionPresent: false }));
        if (p.cmd !== 'subscribe') return;
        // Busy (a starved event loop) while the client sends its last bytes and closes: they wait unread.
        spin(1_000);
        conn.write(mqttPacket.generate({ cmd: 'suback', messageId: p.messageId, granted: [1] }));
        // The closed client answers that with a reset: the next write fails (EPIPE).
        spin(200);
        conn.write(mqttPacket.generate({ cmd: 'suback', messageId: p.messageId, granted: [1] }));
      });
      conn.on('data', (chunk: Buffer) => parser.parse(chunk));
      conn.on('close', () => closed());
      conn.on('error', () => closed());
    },
  });
  const server = createServer((s) => (serverSocket(s), front(s)));
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  const child = spawn(process.execPath, [
    '-e',
    client,
    String(port),
    hex({ cmd: 'connect', protocolId: 'MQTT', protocolVersion, clean: true, keepalive: 60, clientId: 'meter' }),
    hex({ cmd: 'subscribe', messageId: 1, subscriptions: [{ topic: 'v1/devices/me/attributes', qos: 1 }] }),
    Buffer.concat([
      packet({
        cmd: 'publish',
        topic: 'v1/devices/me/telemetry',
        payload: Buffer.from('{"t":1}'),
        qos: 1,
        messageId: 2,
        retain: false,
        dup: false,
      }),
      packet({ cmd: 'disconnect', reasonCode: 0 }),
    ]).toString('hex'),
  ]);
  await socket;
  await bridgeClosed;
  child.kill();
  return read;
}

describe('the MQTT 5 bridge', () => {
  it('hands the broker what a client sent before it closed, though the broker reads only after the connection is gone', async () => {
    const broker = await slowBroker();
    const client = connect(broker.port, '127.0.0.1');
    client.end(
      Buffer.concat([
        v5({ cmd: 'connect', protocolId: 'MQTT', protocolVersion: 5, clean: true, keepalive: 60, clientId: 'meter' }),
        v5({
          cmd: 'publish',
          topic: 'devices/M/telemetry',
          payload: Buffer.from('{"t":1}'),
          qos: 1,
          messageId: 1,
          retain: false,
          dup: false,
        }),
        v5({ cmd: 'disconnect', reasonCode: 0 }),
      ]),
    );
    const serverSocket = await broker.socket;
    await new Promise((resolve) => serverSocket.once('close', resolve));

    // The broker reads now: everything is there, then the end.
    expect(await readAll(await broker.conn)).toEqual(['connect', 'publish devices/M/telemetry {"t":1}', 'disconnect']);
  });

  it('hands the broker what a client sent and closed on while the broker was busy, though an answer to the closed client fails', async () => {
    expect(await busyWhileClientCloses(5)).toEqual(['connect', 'subscribe', 'publish v1/devices/me/telemetry', 'disconnect']);
  });
});

describe('an MQTT 3.1.1 connection', () => {
  it('hands the broker what a client sent and closed on while the broker was busy, though an answer to the closed client fails', async () => {
    // Aedes writing to the socket itself: the failed write (EPIPE) destroyed it with the publish and DISCONNECT unread.
    expect(await busyWhileClientCloses(4)).toEqual(['connect', 'subscribe', 'publish v1/devices/me/telemetry', 'disconnect']);
  });
});
