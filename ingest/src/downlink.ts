import type { DeviceLinkPort, DeviceReply } from '@iot/contracts/ports/device-link.ts';
import { OTA_OFFER_SERVICE, thingsboardFwAttributes } from '@iot/contracts';
import type { Dispatch } from '@iot/contracts/ports/dispatch.ts';
import type { LiveFeed, LiveSender } from '@iot/contracts/ports/live.ts';
import type { DeviceMessage, Intake } from './intake.ts';
import type { DeviceRef, DeviceRegistry } from './registry.ts';
import { textOf } from './payload.ts';
import {
  commandTopic,
  gatewayCommandTopic,
  gatewayReplyTopic,
  namesNoDevice,
  passthroughDownTopic,
  replyTopic,
  rpcRequestTopic,
  TB_ATTRIBUTES_TOPIC,
  TB_GATEWAY_ATTRIBUTES_TOPIC,
  TB_GATEWAY_RPC_TOPIC,
} from './topics.ts';

export interface DownlinkOptions {
  dispatch: Dispatch;
  registry: DeviceRegistry;
  /** The intake whose sessions the downlink reaches (it is made after the downlink: its hooks are the downlink's). */
  intake: () => Pick<Intake, 'sessionOf' | 'handle'>;
  logger: { error(context: object, message: string): void };
  live?: LiveFeed;
  /** The broker's downlink: commands go out on it. */
  publish?: (topic: string, payload: object) => Promise<void>;
  /** To one client only (ThingsBoard's `me` topics name no device); embedded broker only. */
  publishTo?: (clientId: string, topic: string, payload: object) => Promise<boolean>;
  /**
   * External broker: a subscription of this process alone (not shared), for the reply to a command it waits for,
   * which the shared subscription may hand to another ingest process.
   */
  watch?: (topicFilter: string, handler: (message: DeviceMessage) => Promise<void>) => Promise<{ off(): Promise<void> }>;
  /** This process sees every device session (the embedded broker). */
  ownsSessions?: boolean;
}

/**
 * What goes to devices (ARCHITECTURE.md `ingest/`): commands and their replies (RPC correlation, ThingsBoard request
 * ids), desired values sent again once a device is back, and pass-through bytes from an operator, each only to a
 * device the operator may see. The intake calls its hooks; the command side reaches devices through `link`.
 */
export function createDownlink(options: DownlinkOptions) {
  const { registry, logger } = options;
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
  /** A device's reply: to the command waiting for it here, else recorded on the device's stream. */
  const onReply = (device: DeviceRef, replyId: string, output: unknown) => {
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
  };
  /** Raw bytes from a pass-through device, to whoever watches it. */
  const onPassthrough = (device: DeviceRef, bytes: Uint8Array) =>
    options.live?.publish(
      'device.passthrough',
      { tenantId: device.tenantId, groupId: device.groupId, deviceId: device.deviceId },
      { type: 'data', deviceId: device.deviceId, data: textOf(bytes, 'base64'), at: new Date().toISOString() },
    );
  /** A connection ended: a pass-through relay in progress to the device fails, unless another session of it remains. */
  const onDisconnect = (device: DeviceRef) => {
    if (!relaying.delete(device.deviceId) || options.intake().sessionOf(device.deviceId)) return;
    options.live?.publish(
      'device.passthrough',
      { tenantId: device.tenantId, groupId: device.groupId, deviceId: device.deviceId },
      { type: 'state', deviceId: device.deviceId, state: 'failed', reason: 'device disconnected' },
    );
  };
  /** Pass-through (DTU-style devices): an operator's bytes go to the device's own connection here, or fail at once. */
  const relay = (message: unknown, from: LiveSender) => {
    const { deviceId, data } = message as { deviceId: string; data: string };
    const fail = (reason: string) => from.reply({ type: 'state', deviceId, state: 'failed', reason });
    const device = options.intake().sessionOf(deviceId)?.device;
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
  };
  /** How a command reaches a device: its own session, or its ThingsBoard gateway's; null when neither is connected here. */
  const deliveryOf = async (device: { sn: string; deviceId: string }) => {
    if (!options.ownsSessions) return externalDeliveryOf(device);
    const intake = options.intake();
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
      .watch(topic, async (message) => void (await options.intake().handle(message)))
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
      // ThingsBoard firmware: a property set is a shared-attribute update (no reply); a service is a server-side RPC;
      // a rollout's offer is the `fw_*` shared attributes its OTA client acts on.
      const offer = message.kind === 'service' && message.identifier === OTA_OFFER_SERVICE;
      if (message.kind === 'property' || offer) {
        const values = offer ? thingsboardFwAttributes(message.params) : { [message.identifier]: message.params.value };
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
  return {
    link,
    resendLater,
    onReply,
    onPassthrough,
    onDisconnect,
    relay,
    stop() {
      for (const timer of resendTimers.values()) clearTimeout(timer);
    },
  };
}
export type Downlink = ReturnType<typeof createDownlink>;
