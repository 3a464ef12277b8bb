import type { Logger } from 'pino';
import type { Dispatch } from '@iot/contracts/ports/dispatch.ts';
import type { LiveFeed } from '@iot/contracts/ports/live.ts';
import type { TelemetryRow, TimeSeriesStore } from '@iot/contracts/ports/timeseries.ts';
import {
  commandTopic,
  createDeviceRegistry,
  gatewayReplyTopic,
  replyTopic,
  createIntake,
  createIntakeTables,
  createPresence,
  gatewayCommandTopic,
  namesNoDevice,
  passthroughDownTopic,
  rpcRequestTopic,
  TB_ATTRIBUTES_TOPIC,
  TB_GATEWAY_ATTRIBUTES_TOPIC,
  TB_GATEWAY_RPC_TOPIC,
  type DeviceMessage,
  type DeviceRef,
  type TelemetrySink,
} from '@iot/ingest';
import type { DeviceLinkPort, DeviceReply } from '@iot/contracts/ports/device-link.ts';
import type { DeviceEvent, TenantEvent } from '@iot/contracts';
import type { EventStore, StoredEventOf } from '@iot/contracts/ports/event-store.ts';
import type { Bus } from '@iot/contracts/ports/bus.ts';
import { busTelemetrySink, startTimeseriesWriter } from './bus/telemetry.ts';
import type { SqlPool } from './postgres/sql.ts';
import { WriteBatcher } from './timeseries/batcher.ts';
import { thingsboardRequests } from './thingsboard-requests.ts';

export interface IngestOptions {
  db: SqlPool;
  timeseries: TimeSeriesStore;
  dispatch: Dispatch;
  logger: Logger;
  /** Kafka between the intake and the writer: a publish is durable once Kafka has it. Absent: straight to the store. */
  kafka?: Bus | null;
  offlineAfterMs?: number;
  /** A device heard from only by its reports (HTTP, a sub-device, any device over an external broker) is offline after this long without one. */
  heartbeatMs?: number;
  /** The reactors on the telemetry (alarm rules): told of every stored sample and reported event. */
  reactors?: {
    observe(device: { deviceId: string; tenantId: string; productId: string }, rows: readonly TelemetryRow[]): void;
    observeEvent(device: { deviceId: string; tenantId: string; productId: string }, identifier: string, payload: unknown, ts: Date): void;
  }[];
  live?: LiveFeed;
  /** The event log: devices the intake keeps are forgotten as they change (disabled, deleted, rotated, tenant stopped). */
  events?: Pick<EventStore, 'subscribe' | 'headPosition' | 'readStream'>;
  /** The broker's downlink: commands go out on it. */
  publish?: (topic: string, payload: object) => Promise<void>;
  /** This process sees every device session (the embedded broker): devices left online by a previous run are reconciled. */
  ownsSessions?: boolean;
  /**
   * External broker: a subscription of this process alone (not shared), for the reply to a command it waits for,
   * which the shared subscription may hand to another ingest process.
   */
  watch?: (topicFilter: string, handler: (message: DeviceMessage) => Promise<void>) => Promise<{ off(): Promise<void> }>;
  /** To one client only (ThingsBoard's `me` topics name no device); embedded broker only. */
  publishTo?: (clientId: string, topic: string, payload: object) => Promise<boolean>;
  /** Ends a session now (its device lost the right to it); embedded broker only: an external one cuts its own (broker accounts). */
  disconnect?: (clientId: string) => Promise<boolean>;
}

/**
 * The telemetry pipeline of one ingest process (issue 11): device authentication and sessions, validation
 * against the thing model, presence, dead letters, and the writer. Embedded, accepted rows go to the
 * time-series store through a group-commit batcher and a QoS 1 message is acknowledged once they are
 * inserted; with Kafka, once Kafka has them, and a consumer group writes them to the store, committing its
 * offsets only after the insert.
 */
export async function startIngest(options: IngestOptions) {
  const { db, timeseries, logger } = options;
  const tables = createIntakeTables(db, { onError: (err) => logger.error({ err }, 'intake tables flush failed') });
  const presence = createPresence({
    dispatch: options.dispatch,
    offlineAfterMs: options.offlineAfterMs,
    heartbeatTimeoutMs: options.heartbeatMs,
    // An external broker's processes each see some of a device's reports: presence is kept in the read model.
    shared: !options.ownsSessions,
    // An external broker tells no connects: a device recorded back online gets its desired values again.
    onWentOnline: options.ownsSessions ? undefined : (device) => resendLater(device, 1_000),
    onError: (err) => logger.error({ err }, 'presence not recorded'),
  });
  const batcher = new WriteBatcher<TelemetryRow>((rows) => timeseries.insertTelemetry(rows), 100_000);
  let consumer: { stop(): Promise<void> } | null = null;
  let sink: TelemetrySink;
  if (options.kafka) {
    // Kafka: acknowledged once Kafka has the rows; the writer inserts each consumed batch alone, with its token.
    sink = busTelemetrySink(options.kafka);
    consumer = await startTimeseriesWriter({
      bus: options.kafka,
      timeseries,
      onMalformed: (message, err) =>
        logger.error({ err, partition: message.partition, offset: message.offset }, 'telemetry message skipped'),
    });
  } else {
    sink = { write: (rows) => batcher.enqueue(rows) };
  }
  const registry = createDeviceRegistry(db);
  /** What the registry keeps of a device goes as soon as it changes; presence and commands change nothing it keeps. */
  const unchanging = new Set([
    'DeviceWentOnline',
    'DeviceWentOffline',
    'DeviceCommandSent',
    'DeviceCommandReplied',
    'DeviceCommandFailed',
    'DeviceDesiredSet',
  ]);
  /**
   * Devices that lost the right to their sessions: each session here ends at once (the broker disconnects it, what
   * it still sends is refused), and every such device the log shows online (over an external broker, whose own
   * accounts cut its sessions; HTTP devices; sub-devices) is recorded offline now.
   */
  const cutOff = async (lost: { tenantId: string; deviceId?: string }) => {
    const ended = intake.cut((d) => d.tenantId === lost.tenantId && (!lost.deviceId || d.deviceId === lost.deviceId));
    await Promise.all(
      ended.map(({ sessionId }) =>
        options.disconnect?.(sessionId).catch((err: unknown) => logger.error({ err, sessionId }, 'session not disconnected')),
      ),
    );
    const offline = new Map(ended.map(({ device }) => [device.deviceId, device]));
    // A gateway's sub-devices are reached through it: cut with it.
    for (const device of await registry.recordedOnline({ tenantId: lost.tenantId }))
      if (!lost.deviceId || device.deviceId === lost.deviceId || device.gatewayId === lost.deviceId) offline.set(device.deviceId, device);
    for (const device of offline.values()) presence.gone(device);
  };
  /** Follows the log: what the registry keeps of a changed device is dropped; the sessions of a device that lost its rights are cut. */
  const follow = async (event: StoredEventOf<DeviceEvent | TenantEvent>) => {
    if (event.type === 'TenantStopped' || event.type === 'TenantStarted') {
      registry.learnTenant(event.data.tenantId, event.type === 'TenantStarted');
      registry.forget();
      if (event.type === 'TenantStopped') await cutOff({ tenantId: event.data.tenantId });
      return;
    }
    if (!event.streamName.startsWith('device-') || unchanging.has(event.type)) return;
    const deviceId = event.streamName.slice(event.streamName.indexOf('.') + 1);
    const lost = { tenantId: event.metadata.tenantId, deviceId };
    registry.forget(deviceId);
    switch (event.type) {
      case 'DeviceDisabled':
        registry.learnDevice(deviceId, { enabled: false });
        return cutOff(lost);
      case 'DeviceEnabled':
        return registry.learnDevice(deviceId, { enabled: true });
      case 'DeviceDeleted':
        registry.learnDevice(deviceId, { deleted: true });
        return cutOff(lost);
      case 'DeviceSecretRotated':
        registry.learnDevice(deviceId, { secretHash: event.data.secretHash });
        return cutOff(lost);
      case 'DeviceMoved':
        return intake.update(deviceId, { groupId: event.data.groupId });
      case 'DeviceGatewayBound':
        return intake.update(deviceId, { gatewayId: event.data.gatewayId });
      case 'DeviceUpdated':
        return intake.update(deviceId, { name: event.data.name });
      case 'DeviceModelUpgraded':
        return intake.update(deviceId, { modelVersion: event.data.modelVersion });
      default:
        return;
    }
  };
  /**
   * The broker's fan-out, to whoever subscribed: only for topics that name their device. A topic that names none
   * (ThingsBoard's `me` and gateway API) would reach every device subscribed to it: it goes to one session (`publishTo`).
   */
  const publish =
    options.publish &&
    ((topic: string, payload: object) =>
      namesNoDevice(topic)
        ? Promise.reject(new Error(`${topic} names no device: sent to its session only`))
        : options.publish!(topic, payload));
  /** Synchronous commands waiting for their reply, by message id. */
  const waiting = new Map<string, (reply: DeviceReply) => void>();
  /** Replies a waiting command got here lately: a second copy (shared and own subscription) is not recorded again. */
  const answered = new Set<string>();
  /** ThingsBoard RPC request ids (integers, as its firmware expects) of commands in flight: `deviceId:requestId` -> message id. */
  const rpcIds = new Map<string, string>();
  let rpcCounter = 0;
  const rememberRpc = (deviceId: string, messageId: string) => {
    rpcCounter += 1;
    rpcIds.set(`${deviceId}:${rpcCounter}`, messageId);
    // Requests never answered are forgotten oldest first: the map stays bounded.
    if (rpcIds.size > 10_000) rpcIds.delete(rpcIds.keys().next().value!);
    return rpcCounter;
  };
  /** Devices with a pass-through relay in progress: their disconnect fails it. */
  const relaying = new Set<string>();
  /** Desired values go out again once a device is back: soon after it subscribes to its downlink, or a second after it connects. */
  const resendTimers = new Map<string, NodeJS.Timeout>();
  const resend = (device: { deviceId: string; tenantId: string }, before: string) => {
    const key = `desired:${device.deviceId}:${Date.now()}`;
    return options
      .dispatch(
        { type: 'ResendDesired', deviceId: device.deviceId, before },
        {
          tenantId: device.tenantId,
          actor: { kind: 'system', id: 'desired-state' },
          correlationId: key,
          causationId: null,
          idempotencyKey: key,
        },
      )
      .catch((err: unknown) => logger.error({ err }, 'desired values not re-sent'));
  };
  const resendLater = (device: DeviceRef, ms: number) => {
    clearTimeout(resendTimers.get(device.deviceId));
    // Values set after this instant went out live to the subscribed device: only older ones are re-sent.
    const before = new Date().toISOString();
    const timer = setTimeout(() => {
      resendTimers.delete(device.deviceId);
      void resend(device, before);
      // A gateway back: its sub-devices' commands go through it, so theirs go out again too.
      if (device.nodeType === 'gateway')
        void registry.subDevicesOf(device).then(
          async (subs) => {
            for (const sub of subs) await resend(sub, before);
          },
          (err: unknown) => logger.error({ err }, 'sub-devices not found'),
        );
    }, ms);
    timer.unref();
    resendTimers.set(device.deviceId, timer);
  };
  const intake = createIntake({
    // ThingsBoard's client-side RPC and attribute requests: answered to the asking session, so on the embedded broker.
    thingsboard:
      options.publishTo && options.events
        ? thingsboardRequests({ timeseries, events: options.events, registry, publishTo: options.publishTo })
        : undefined,
    onConnect: (device) => resendLater(device, 1_000),
    onSubscribe: (device) => resendLater(device, 100),
    onPassthrough: (device, bytes) =>
      options.live?.publish(
        'device.passthrough',
        { tenantId: device.tenantId, groupId: device.groupId, deviceId: device.deviceId },
        { type: 'data', deviceId: device.deviceId, data: bytes.toString('base64'), at: new Date().toISOString() },
      ),
    onDisconnect: (device) => {
      if (!relaying.delete(device.deviceId) || intake.sessionOf(device.deviceId)) return;
      options.live?.publish(
        'device.passthrough',
        { tenantId: device.tenantId, groupId: device.groupId, deviceId: device.deviceId },
        { type: 'state', deviceId: device.deviceId, state: 'failed', reason: 'device disconnected' },
      );
    },
    registry,
    sink,
    presence,
    deadLetters: (letter) => tables.deadLetter(letter),
    onReport: (device, at) => tables.report(device.deviceId, device.tenantId, at),
    onReply: (device, replyId, output) => {
      const rpcKey = `${device.deviceId}:${replyId}`;
      const messageId = rpcIds.get(rpcKey) ?? replyId;
      rpcIds.delete(rpcKey);
      const resolve = waiting.get(messageId);
      if (resolve) {
        answered.add(messageId);
        if (answered.size > 10_000) answered.delete(answered.values().next().value!);
        return resolve({ ok: true, output });
      }
      if (answered.has(messageId)) return;
      // Nobody waits (an asynchronous command, or a late reply): recorded on the device's stream all the same.
      void options
        .dispatch(
          { type: 'RecordDeviceReply', deviceId: device.deviceId, messageId: messageId.slice(0, 64), output },
          {
            tenantId: device.tenantId,
            actor: { kind: 'device', id: device.deviceId },
            correlationId: messageId.slice(0, 64),
            causationId: null,
            idempotencyKey: `reply:${messageId.slice(0, 64)}`,
          },
        )
        .catch((err: unknown) => logger.error({ err }, 'device reply not recorded'));
    },
    onEvent: (device, identifier, payload, ts) => {
      for (const reactor of options.reactors ?? []) reactor.observeEvent(device, identifier, payload, ts);
    },
    onStored: (device, rows) => {
      for (const reactor of options.reactors ?? []) reactor.observe(device, rows);
      const live = options.live;
      if (!live?.listening('telemetry.live')) return;
      for (const r of rows) {
        live.publish(
          'telemetry.live',
          { tenantId: r.tenantId, groupId: device.groupId, deviceId: r.deviceId },
          { deviceId: r.deviceId, variable: r.variable, ts: r.ts.toISOString(), value: r.value, text: r.text },
        );
      }
    },
  });
  const changes = options.events
    ? options.events.subscribe({
        after: await options.events.headPosition(),
        categories: ['device', 'tenant'],
        onEvents: async (events) => {
          for (const event of events) await follow(event as StoredEventOf<DeviceEvent | TenantEvent>);
        },
        onError: (err) => logger.error({ err }, 'device changes not followed'),
      })
    : null;
  // Pass-through (DTU-style devices): an operator's bytes go to the device's own connection here, or fail at once.
  options.live?.onInbound?.('device.passthrough', (message, from) => {
    const { deviceId, data } = message as { deviceId: string; data: string };
    const fail = (reason: string) => from.reply({ type: 'state', deviceId, state: 'failed', reason });
    const device = intake.sessionOf(deviceId)?.device;
    // Another tenant's device, or one outside the caller's group or choice, answers as an absent one does.
    const visible =
      device &&
      device.tenantId === from.tenantId &&
      (!from.groups || (device.groupId !== null && from.groups.has(device.groupId))) &&
      (!from.devices || from.devices.has(deviceId));
    if (!visible || !publish) return fail('offline');
    publish(passthroughDownTopic(device.sn), Buffer.from(data, 'base64')).then(
      () => {
        relaying.add(deviceId);
        from.reply({ type: 'state', deviceId, state: 'inProgress', reason: null });
      },
      () => fail('not delivered'),
    );
  });
  /** How a command reaches a device: its own session, or its ThingsBoard gateway's; null when neither is connected here. */
  const deliveryOf = async (device: { sn: string; deviceId: string }) => {
    if (!options.ownsSessions) return externalDeliveryOf(device);
    const own = intake.sessionOf(device.deviceId);
    if (own) return own.thingsboard ? { style: 'thingsboard' as const, clientId: own.clientId } : { style: 'native' as const };
    const ref = await registry.bySn(device.sn);
    const gateway = ref?.gatewayId ? intake.sessionOf(ref.gatewayId) : null;
    if (!ref || !gateway) return null;
    return gateway.thingsboard
      ? { style: 'tbGateway' as const, clientId: gateway.clientId, name: ref.name }
      : { style: 'nativeGateway' as const, gatewaySn: gateway.device.sn };
  };
  /**
   * Over an external broker no process sees the devices' sessions: a device is reachable while its presence says
   * online (it reported within the heartbeat time-out), a sub-device while its gateway is.
   */
  const externalDeliveryOf = async (device: { deviceId: string }) => {
    const found = await registry.reachability(device.deviceId);
    if (found?.gatewaySn) return found.gatewayOnline ? { style: 'nativeGateway' as const, gatewaySn: found.gatewaySn } : null;
    return found?.online ? { style: 'native' as const } : null;
  };
  const awaitReply = (messageId: string, waitMs: number) =>
    new Promise<DeviceReply>((resolve) => {
      const timer = setTimeout(() => {
        waiting.delete(messageId);
        resolve({ ok: false, reason: 'timeout' });
      }, waitMs);
      waiting.set(messageId, (r) => {
        clearTimeout(timer);
        waiting.delete(messageId);
        resolve(r);
      });
    });
  /**
   * The reply to a command sent now. Over an external broker the shared subscription may hand it to another
   * ingest process: this one also subscribes alone to that one reply topic while it waits.
   */
  const replyTo = async (topic: string, messageId: string, waitMs: number): Promise<{ reply: Promise<DeviceReply> }> => {
    const reply = awaitReply(messageId, waitMs);
    if (!options.watch) return { reply };
    const watching = await options
      .watch(topic, async (message) => void (await intake.handle(message)))
      .catch((err: unknown) => {
        logger.error({ err, topic }, 'reply topic not watched');
        return null;
      });
    void reply.finally(() => watching?.off().catch((err: unknown) => logger.error({ err, topic }, 'reply topic not unwatched')));
    return { reply };
  };
  const link: DeviceLinkPort = {
    reachable: async (device) => (await deliveryOf(device)) !== null,
    async send(device, message, waitMs) {
      const delivery = await deliveryOf(device);
      if (waitMs !== null && !delivery) return { ok: false, reason: 'offline' };
      if (!publish) return { ok: false, reason: 'offline' };
      if (!delivery || delivery.style === 'native' || delivery.style === 'nativeGateway') {
        const gatewaySn = delivery?.style === 'nativeGateway' ? delivery.gatewaySn : null;
        const topic = gatewaySn ? gatewayReplyTopic(gatewaySn, message.messageId) : replyTopic(device.sn, message.messageId);
        const waited = waitMs === null ? null : await replyTo(topic, message.messageId, waitMs);
        if (gatewaySn) await publish(gatewayCommandTopic(gatewaySn, message.messageId), { ...message, sn: device.sn });
        else await publish(commandTopic(device.sn, message.messageId), message);
        return waited ? waited.reply : null;
      }
      const publishTo = options.publishTo;
      if (!publishTo) return { ok: false, reason: 'offline' };
      // ThingsBoard firmware: a property set is a shared-attribute update (no reply); a service is a server-side RPC.
      if (message.kind === 'property') {
        const values = { [message.identifier]: message.params.value };
        const sent =
          delivery.style === 'thingsboard'
            ? await publishTo(delivery.clientId, TB_ATTRIBUTES_TOPIC, values)
            : await publishTo(delivery.clientId, TB_GATEWAY_ATTRIBUTES_TOPIC, { device: delivery.name, data: values });
        return sent ? null : { ok: false, reason: 'offline' };
      }
      const requestId = rememberRpc(device.deviceId, message.messageId);
      const rpc = { method: message.identifier, params: message.params };
      const reply = waitMs === null ? null : awaitReply(message.messageId, waitMs);
      const sent =
        delivery.style === 'thingsboard'
          ? await publishTo(delivery.clientId, rpcRequestTopic(requestId), rpc)
          : await publishTo(delivery.clientId, TB_GATEWAY_RPC_TOPIC, { device: delivery.name, data: { id: requestId, ...rpc } });
      if (!sent) {
        waiting.get(message.messageId)?.({ ok: false, reason: 'offline' });
        return waitMs === null ? null : { ok: false, reason: 'offline' };
      }
      return reply;
    },
  };
  // Devices recorded online when the previous process stopped: offline unless they come back within the delay.
  if (options.ownsSessions)
    await registry.recordedOnline().then(
      (online) => presence.reconcile(online),
      (err: unknown) => logger.error({ err }, 'presence not reconciled'),
    );
  // Over an external broker: devices no process heard from for the heartbeat time-out go offline (every process
  // looks; the log records a state a device is already in only once).
  let sweeping = false;
  const sweep = async () => {
    if (sweeping) return;
    sweeping = true;
    try {
      for (const device of await registry.silentOnline(presence.heartbeatTimeoutMs)) presence.timedOut(device);
    } catch (err) {
      logger.error({ err }, 'silent devices not timed out');
    } finally {
      sweeping = false;
    }
  };
  const sweeper = options.ownsSessions
    ? null
    : setInterval(() => void sweep(), Math.max(200, Math.min(presence.heartbeatTimeoutMs / 4, 30_000)));
  sweeper?.unref();
  return {
    intake,
    link,
    registry,
    presence,
    tables,
    flush: async () => {
      await batcher.flush();
      await tables.flush();
    },
    async stop() {
      clearInterval(sweeper ?? undefined);
      await changes?.stop();
      for (const timer of resendTimers.values()) clearTimeout(timer);
      presence.stop();
      await consumer?.stop();
      await batcher.flush();
      await tables.stop();
    },
  };
}
export type Ingest = Awaited<ReturnType<typeof startIngest>>;
