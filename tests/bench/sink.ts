/**
 * The generator's sink (issue 23): a raw-socket MQTT acceptor on loopback that accepts every CONNECT
 * (3.1.1 or 5), acknowledges every QoS 1 PUBLISH at once and drops it. What the generator reaches against it
 * is the generator's own ceiling on this machine, measured in the same run as the figures it drives.
 */
import net from 'node:net';
import { FrameSplitter, PACKET } from './mqtt-frames.ts';

export interface Sink {
  url: string;
  /** PUBLISH packets received so far. */
  readonly received: number;
  close(): Promise<void>;
}

const CONNACK = { 4: Buffer.from([0x20, 0x02, 0x00, 0x00]), 5: Buffer.from([0x20, 0x03, 0x00, 0x00, 0x00]) };
const PINGRESP = Buffer.from([0xd0, 0x00]);

export async function startSink(): Promise<Sink> {
  let received = 0;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.setNoDelay(true);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    let answers: Buffer | null = null;
    let at = 0;
    const answer = (bytes: Buffer | number[]) => {
      if (!answers || at + bytes.length > answers.length) {
        if (answers && at > 0) socket.write(answers.subarray(0, at));
        answers = Buffer.allocUnsafe(Math.max(4096, bytes.length));
        at = 0;
      }
      for (let i = 0; i < bytes.length; i++) answers[at++] = bytes[i]!;
    };
    const splitter = new FrameSplitter((buffer, type, flags, bodyStart) => {
      if (type === PACKET.publish) {
        received += 1;
        if (((flags >> 1) & 3) === 1) {
          const idAt = bodyStart + 2 + buffer.readUInt16BE(bodyStart);
          answer([0x40, 0x02, buffer[idAt]!, buffer[idAt + 1]!]);
        }
      } else if (type === PACKET.connect) {
        // Protocol name (2-byte length + "MQTT"), then the level: 4 is 3.1.1, 5 is 5.
        const level = buffer[bodyStart + 2 + buffer.readUInt16BE(bodyStart)]!;
        answer(level === 5 ? CONNACK[5] : CONNACK[4]);
      } else if (type === PACKET.pingreq) answer(PINGRESP);
      else if (type === PACKET.disconnect) socket.end();
    });
    socket.on('data', (chunk: Buffer) => {
      splitter.push(chunk);
      // One write per read: the acknowledgements of the packets it held.
      if (answers && at > 0) {
        socket.write(answers.subarray(0, at));
        answers = null;
        at = 0;
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    url: `mqtt://127.0.0.1:${port}`,
    get received() {
      return received;
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
