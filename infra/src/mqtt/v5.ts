// First: mqtt-packet's `debug` calls cost nothing while DEBUG leaves them off (quiet-debug.ts).
import './quiet-debug.ts';
import type { Socket } from 'node:net';
import { Duplex } from 'node:stream';
import mqtt, { type IConnackPacket, type IConnectPacket, type IPublishPacket, type Packet } from 'mqtt-packet';

/**
 * MQTT 5 in front of Aedes, which speaks 3.1 and 3.1.1 only (ARCHITECTURE.md "Facts checked"). Each TCP
 * connection's CONNECT is peeked at: 3.1/3.1.1 go to Aedes byte for byte (writes queued as the bridge's are); a
 * 5 client gets a bridge that parses its packets as MQTT 5, hands Aedes their 3.1.1 form, and turns Aedes' 3.1.1
 * answers back into MQTT 5 (CONNACK and SUBACK reason codes, PUBACK reason codes for refused messages, a DISCONNECT
 * with a reason before the server closes). What 3.1.1 cannot carry is dropped: user properties, response topic and correlation data, message
 * expiry, subscription options; topic aliases from the client are resolved here, and none is used towards it.
 */

/** MQTT 5 reason codes this bridge sends (OASIS MQTT 5.0 §2.4). */
export const ReasonCode = {
  success: 0x00,
  unspecifiedError: 0x80,
  malformedPacket: 0x81,
  protocolError: 0x82,
  implementationSpecificError: 0x83,
  unsupportedProtocolVersion: 0x84,
  clientIdentifierNotValid: 0x85,
  badUserNameOrPassword: 0x86,
  notAuthorized: 0x87,
  serverUnavailable: 0x88,
  badAuthenticationMethod: 0x8c,
  keepAliveTimeout: 0x8d,
  sessionTakenOver: 0x8e,
  serverShuttingDown: 0x8b,
  topicNameInvalid: 0x90,
  topicAliasInvalid: 0x94,
  payloadFormatInvalid: 0x99,
} as const;

/** CONNACK return codes of 3.1.1 (index) as MQTT 5 reason codes. */
const connackReason = [
  ReasonCode.success,
  ReasonCode.unsupportedProtocolVersion,
  ReasonCode.clientIdentifierNotValid,
  ReasonCode.serverUnavailable,
  ReasonCode.badUserNameOrPassword,
  ReasonCode.notAuthorized,
];

/** Topic aliases a client may set (each keeps a topic here); none is used towards the client. */
const TOPIC_ALIAS_MAXIMUM = 100;

/** How long a closing bridge waits for the client to take its last packets before the socket is destroyed. */
const LINGER_MS = 2_000;

/** The protocol level of a CONNECT in `head`, or null while more bytes are needed; -1 when it is no CONNECT. */
export function protocolLevelOf(head: Buffer): number | null {
  if (head.length === 0) return null;
  if (head[0] !== 0x10) return -1;
  // Remaining length: 1 to 4 bytes, 7 bits each.
  let pos = 1;
  for (; pos < 5; pos++) {
    if (pos >= head.length) return null;
    if ((head[pos]! & 0x80) === 0) break;
  }
  if (pos === 5) return -1;
  const nameAt = pos + 1;
  if (head.length < nameAt + 2) return null;
  const nameLength = head.readUInt16BE(nameAt);
  if (nameLength > 6) return -1;
  const levelAt = nameAt + 2 + nameLength;
  if (head.length <= levelAt) return null;
  return head[levelAt]!;
}

/** What the embedded broker sees of a connection: whether it speaks MQTT 5, and how to tell it why a publish was refused. */
export interface MqttConnectionSide {
  /** Marks the QoS 1/2 publish `messageId` as refused: its PUBACK (or PUBREC) carries `reasonCode` (MQTT 5 only). */
  refusePublish?(messageId: number, reasonCode: number): void;
  /** The reason code of the DISCONNECT this connection gets when the broker closes it (MQTT 5 only). */
  closeReason?(reasonCode: number): void;
}

interface Broker {
  handle(conn: Duplex | Socket): void;
  readonly closed: boolean;
}

/**
 * The connection listener of the embedded broker's TCP server: `net.createServer(mqttFront(aedes))`.
 * `onError` hears what the bridge could not parse (the connection is closed then).
 */
export function mqttFront(broker: Broker, onError?: (error: Error) => void) {
  return (socket: Socket) => {
    let head = Buffer.alloc(0);
    const decide = () => {
      let chunk: Buffer | null;
      while ((chunk = socket.read() as Buffer | null) !== null) head = Buffer.concat([head, chunk]);
      const level = protocolLevelOf(head);
      if (level === null) return;
      socket.off('readable', decide);
      socket.off('end', ended);
      if (level === 5) return void new Bridge(broker, socket, head, onError);
      // 3.1/3.1.1 (or not MQTT at all, which Aedes refuses): the bytes as they are, with the same care for the client's last ones.
      new PassThroughSide(broker, socket, head);
    };
    const ended = () => socket.destroy();
    socket.on('readable', decide);
    socket.once('end', ended);
    socket.once('error', () => socket.destroy());
  };
}

/**
 * A client's connection as Aedes sees it: what the client sends is pushed to Aedes (the socket paused while Aedes is
 * behind), what Aedes writes goes to the client queued once per event-loop turn (`flush`), and once the client's end is
 * seen nothing more is written. Aedes writing to the socket itself loses a client's last packets (below).
 */
abstract class ClientSide extends Duplex {
  /** Aedes was told the client sent its last bytes. */
  private endPushed = false;
  /** Packets for the client, written together once per turn of the event loop (`flush`). */
  private readonly outgoing: Buffer[] = [];
  private flushing: NodeJS.Immediate | null = null;

  constructor(protected readonly socket: Socket) {
    super({ allowHalfOpen: false });
    socket.on('data', (chunk: Buffer) => this.fromClientBytes(chunk));
    socket.on('end', () => this.endForBroker());
    socket.on('error', (error) => this.socketGone(error));
    socket.on('close', () => this.socketGone(null));
  }

  /** The client's address, as on a socket (the MQTT screen lists it). */
  get remoteAddress() {
    return this.socket.remoteAddress;
  }

  get remotePort() {
    return this.socket.remotePort;
  }

  /** Bytes from the client. */
  protected abstract fromClientBytes(chunk: Buffer): void;
  /** Bytes Aedes wrote for the client. */
  protected abstract fromBrokerBytes(chunk: Buffer): void;

  /** Starts reading the socket, read by hand until now: from here on it flows, paused while Aedes is behind. */
  protected start(broker: Broker) {
    broker.handle(this);
    this.socket.resume();
  }

  protected pushToBroker(bytes: Buffer) {
    if (!this.push(bytes)) this.socket.pause();
  }

  /**
   * The client's connection is gone. What it sent before still reaches Aedes, which reads between batches of packets
   * (a batch waits for its messages to be stored): a client that sends its last messages and DISCONNECT and closes at
   * once must not lose the ones still waiting here. Aedes ends the session once it has read them; nothing more goes out.
   */
  private socketGone(error: Error | null) {
    if (this.destroyed) return;
    if (this.readableLength === 0) return void this.destroy(error ?? undefined);
    this.endForBroker();
    this.once('end', () => this.destroy());
  }

  private endForBroker() {
    if (this.endPushed) return;
    this.endPushed = true;
    this.push(null);
  }

  override _read() {
    if (this.socket.isPaused()) this.socket.resume();
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, done: (error?: Error | null) => void) {
    this.fromBrokerBytes(chunk);
    if (!this.socket.writableNeedDrain || this.socket.destroyed) return done();
    // Aedes writes on once the client takes more, or once the client is gone (then there is no one to wait for).
    const go = () => {
      this.socket.off('drain', go);
      this.socket.off('close', go);
      done();
    };
    this.socket.on('drain', go);
    this.socket.on('close', go);
  }

  override _destroy(error: Error | null, done: (error?: Error | null) => void) {
    this.lingerThenClose();
    done(error);
  }

  /** Ends the socket once what was written went out, and destroys it if the client does not close in time. */
  protected lingerThenClose() {
    if (this.socket.destroyed) return;
    if (this.flushing) clearImmediate(this.flushing);
    this.flush();
    this.socket.end();
    setTimeout(() => this.socket.destroy(), LINGER_MS).unref();
  }

  /** Queues bytes for the client; nothing once it is gone (its acknowledgements have no one to go to). */
  protected toClientBytes(bytes: Buffer) {
    if (this.socket.destroyed || !this.socket.writable) return;
    this.outgoing.push(bytes);
    this.flushing ??= setImmediate(() => this.flush());
  }

  /**
   * Writes what went to the client since the last turn, once the event loop has read what arrived meanwhile. A client
   * that sent its last packets and closed while this process was busy answers a write with a reset, and Node destroys
   * the socket at the next failed write, with those packets still unread in the kernel: read first, they are kept
   * (and the client's end is seen, so nothing more is written to it).
   */
  private flush() {
    this.flushing = null;
    const bytes = this.outgoing.splice(0);
    if (bytes.length === 0 || this.socket.destroyed || !this.socket.writable) return;
    // One writev, without copying the packets (a firmware chunk is 64 KB) into one buffer first.
    this.socket.cork();
    for (const part of bytes) this.socket.write(part);
    this.socket.uncork();
  }
}

/** One MQTT 3.1/3.1.1 client: its bytes as they are, both ways. */
class PassThroughSide extends ClientSide {
  constructor(broker: Broker, socket: Socket, head: Buffer) {
    super(socket);
    this.start(broker);
    this.pushToBroker(head);
  }

  protected fromClientBytes(chunk: Buffer) {
    this.pushToBroker(chunk);
  }

  protected fromBrokerBytes(chunk: Buffer) {
    this.toClientBytes(chunk);
  }
}

/**
 * One MQTT 5 client: the socket side speaks 5, the Duplex side (what Aedes reads and writes) 3.1.1.
 * Aedes sets `conn.client` on the Duplex, as it does on a socket.
 */
class Bridge extends ClientSide implements MqttConnectionSide {
  private readonly fromClient = mqtt.parser({ protocolVersion: 5 });
  private readonly fromBroker = mqtt.parser({ protocolVersion: 4 });
  /** Topic aliases the client set (alias -> topic). */
  private readonly aliases = new Map<number, string>();
  private topicAliasMaximum = 0;
  /** Refused publishes' reason codes, by message id, until their acknowledgement goes out. */
  private readonly refused = new Map<number, number>();
  /** Topic counts of pending UNSUBSCRIBEs, by message id: a 5 UNSUBACK carries one reason code per topic. */
  private readonly unsubscribing = new Map<number, number>();
  private clientIdGiven = true;
  /** The CONNACK went out and let the client in: from then on the server says why it closes. */
  private accepted = false;
  private clientDisconnected = false;
  private reason: number | null = null;
  /** The largest packet the client takes (bytes), 0 for no limit. */
  private maximumPacketSize = 0;

  constructor(
    private readonly broker: Broker,
    socket: Socket,
    head: Buffer,
    private readonly onError?: (error: Error) => void,
  ) {
    super(socket);
    this.fromClient.on('packet', (packet: Packet) => this.fromClientPacket(packet));
    this.fromClient.on('error', (error: Error) => this.fail(error, ReasonCode.malformedPacket));
    this.fromBroker.on('packet', (packet: Packet) => this.fromBrokerPacket(packet));
    this.fromBroker.on('error', (error: Error) => this.destroy(error));
    this.start(broker);
    this.fromClient.parse(head);
  }

  protected fromClientBytes(chunk: Buffer) {
    this.fromClient.parse(chunk);
  }

  protected fromBrokerBytes(chunk: Buffer) {
    this.fromBroker.parse(chunk);
  }

  refusePublish(messageId: number, reasonCode: number) {
    this.refused.set(messageId, reasonCode);
  }

  closeReason(reasonCode: number) {
    this.reason = reasonCode;
  }

  override _destroy(error: Error | null, done: (error?: Error | null) => void) {
    // A 5 server says why it closes, unless the client left or the CONNACK already refused it.
    if (this.accepted && !this.clientDisconnected && !this.socket.destroyed && this.socket.writable) {
      const reasonCode = this.reason ?? reasonOf(error, this.broker.closed);
      this.toClient({ cmd: 'disconnect', reasonCode });
    }
    super._destroy(error, done);
  }

  private toBroker(packet: Packet) {
    this.pushToBroker(mqtt.generate(packet, { protocolVersion: 4 }));
  }

  private toClient(packet: Packet) {
    const bytes = mqtt.generate(packet, { protocolVersion: 5 });
    // A packet larger than the client takes is not sent (MQTT 5 §3.1.2.11.4): a publish is dropped as if delivered.
    if (this.maximumPacketSize > 0 && bytes.length > this.maximumPacketSize) return;
    this.toClientBytes(bytes);
  }

  private fail(error: Error, reasonCode: number) {
    this.onError?.(error);
    this.reason = reasonCode;
    this.destroy(error);
  }

  private fromClientPacket(packet: Packet) {
    switch (packet.cmd) {
      case 'connect':
        return this.connect(packet);
      case 'publish': {
        const topic = this.topicOf(packet);
        if (topic === null) return;
        return this.toBroker({
          cmd: 'publish',
          topic,
          payload: packet.payload,
          qos: packet.qos,
          retain: packet.retain,
          dup: packet.dup,
          messageId: packet.messageId,
        });
      }
      case 'subscribe':
        return this.toBroker({
          cmd: 'subscribe',
          messageId: packet.messageId,
          subscriptions: packet.subscriptions.map(({ topic, qos }) => ({ topic, qos })),
        });
      case 'unsubscribe':
        this.unsubscribing.set(packet.messageId!, packet.unsubscriptions.length);
        return this.toBroker({ cmd: 'unsubscribe', messageId: packet.messageId, unsubscriptions: packet.unsubscriptions });
      case 'puback':
      case 'pubrec':
      case 'pubrel':
      case 'pubcomp':
        return this.toBroker({ cmd: packet.cmd, messageId: packet.messageId });
      case 'pingreq':
        return this.toBroker({ cmd: 'pingreq' });
      case 'disconnect':
        this.clientDisconnected = true;
        // 0x04 "disconnect with will message": 3.1.1 publishes the will only when the connection just ends.
        if (packet.reasonCode === 0x04) return this.socket.end();
        return this.toBroker({ cmd: 'disconnect' });
      default:
        // AUTH (enhanced authentication) and server-to-client packets have no place here.
        return this.fail(new Error(`unexpected ${packet.cmd} from an MQTT 5 client`), ReasonCode.protocolError);
    }
  }

  private connect(packet: IConnectPacket) {
    const properties = packet.properties ?? {};
    if (properties.authenticationMethod) {
      // Enhanced authentication (AUTH packets) is not offered: MQTT 5 §4.12 answers so.
      this.toClient({ cmd: 'connack', sessionPresent: false, reasonCode: ReasonCode.badAuthenticationMethod });
      return this.lingerThenClose();
    }
    this.clientIdGiven = packet.clientId !== '';
    this.topicAliasMaximum = 0;
    this.maximumPacketSize = properties.maximumPacketSize ?? 0;
    // 3.1.1 has one flag for "start afresh" and "forget at the end"; a 5 session that outlives its connection needs the latter off.
    const keepsSession = (properties.sessionExpiryInterval ?? 0) > 0;
    this.toBroker({
      cmd: 'connect',
      protocolId: 'MQTT',
      protocolVersion: 4,
      clientId: packet.clientId,
      clean: !keepsSession,
      keepalive: packet.keepalive,
      ...(packet.username !== undefined ? { username: packet.username } : {}),
      ...(packet.password !== undefined ? { password: packet.password } : {}),
      ...(packet.will
        ? { will: { topic: packet.will.topic, payload: packet.will.payload, qos: packet.will.qos, retain: packet.will.retain } }
        : {}),
    });
  }

  /** The topic of a client's publish, its alias resolved; null (and the connection closed) for a bad alias. */
  private topicOf(packet: IPublishPacket): string | null {
    const alias = packet.properties?.topicAlias;
    if (alias === undefined) return packet.topic;
    if (alias === 0 || alias > this.topicAliasMaximum) {
      this.fail(new Error(`topic alias ${alias} out of range`), ReasonCode.topicAliasInvalid);
      return null;
    }
    if (packet.topic) {
      this.aliases.set(alias, packet.topic);
      return packet.topic;
    }
    const topic = this.aliases.get(alias);
    if (topic === undefined) {
      this.fail(new Error(`topic alias ${alias} never set`), ReasonCode.protocolError);
      return null;
    }
    return topic;
  }

  private fromBrokerPacket(packet: Packet) {
    switch (packet.cmd) {
      case 'connack':
        return this.connack(packet);
      case 'publish':
        return this.toClient({
          cmd: 'publish',
          topic: packet.topic,
          payload: packet.payload,
          qos: packet.qos,
          retain: packet.retain,
          dup: packet.dup,
          ...(packet.qos > 0 ? { messageId: packet.messageId } : {}),
        });
      case 'puback':
      case 'pubrec': {
        const reasonCode = this.refused.get(packet.messageId!) ?? ReasonCode.success;
        this.refused.delete(packet.messageId!);
        return this.toClient({ cmd: packet.cmd, messageId: packet.messageId, reasonCode });
      }
      case 'pubrel':
      case 'pubcomp':
        return this.toClient({ cmd: packet.cmd, messageId: packet.messageId, reasonCode: ReasonCode.success });
      case 'suback':
        // Aedes refuses a subscription only when the authorization hook does: "not authorized".
        return this.toClient({
          cmd: 'suback',
          messageId: packet.messageId,
          granted: (packet.granted as number[]).map((code) => (code === 0x80 ? ReasonCode.notAuthorized : code)),
        });
      case 'unsuback': {
        const count = this.unsubscribing.get(packet.messageId!) ?? 1;
        this.unsubscribing.delete(packet.messageId!);
        return this.toClient({ cmd: 'unsuback', messageId: packet.messageId, granted: Array<number>(count).fill(ReasonCode.success) });
      }
      case 'pingresp':
        return this.toClient({ cmd: 'pingresp' });
      default:
        return undefined;
    }
  }

  private connack(packet: IConnackPacket) {
    const reasonCode = connackReason[packet.returnCode ?? 0] ?? ReasonCode.unspecifiedError;
    const assigned = !this.clientIdGiven && reasonCode === ReasonCode.success ? clientIdOf(this) : undefined;
    this.accepted = reasonCode === ReasonCode.success;
    this.toClient({
      cmd: 'connack',
      sessionPresent: packet.sessionPresent,
      reasonCode,
      properties: {
        topicAliasMaximum: TOPIC_ALIAS_MAXIMUM,
        ...(assigned ? { assignedClientIdentifier: assigned } : {}),
      },
    });
    this.topicAliasMaximum = TOPIC_ALIAS_MAXIMUM;
  }
}

/** The client id Aedes gave a client that sent none (Aedes sets `client` on its connection). */
function clientIdOf(conn: Duplex): string | undefined {
  const id = (conn as Duplex & { client?: { id?: unknown } }).client?.id;
  return typeof id === 'string' ? id : undefined;
}

/** Why Aedes closed a connection, as an MQTT 5 DISCONNECT reason. */
function reasonOf(error: Error | null, brokerClosed: boolean): number {
  if (brokerClosed) return ReasonCode.serverShuttingDown;
  if (!error) return ReasonCode.sessionTakenOver;
  if (/keep ?alive/i.test(error.message)) return ReasonCode.keepAliveTimeout;
  if (/not allowed|not authori[sz]ed/i.test(error.message)) return ReasonCode.notAuthorized;
  return ReasonCode.unspecifiedError;
}
