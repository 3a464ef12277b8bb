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
});
