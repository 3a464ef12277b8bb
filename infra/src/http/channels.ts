import type { FastifyTypeProvider } from 'fastify';
import type { AnyFastify } from './instance.ts';
import websocket from '@fastify/websocket';
import type { WebSocket } from 'ws';
import type { ChannelSpec } from '@iot/contracts/http/channel.ts';
import type { Principal } from '@iot/contracts/http/principal.ts';
import type { EventStore, StoredEvent, Subscription } from '@iot/contracts/ports/event-store.ts';
import type { Lookups } from '@iot/contracts/ports/lookups.ts';
import type { LiveInboundHandler } from '@iot/contracts/ports/live.ts';

interface Listener {
  socket: WebSocket;
  tenantId: string;
  /** For group-scoped channels: the groups of the caller's current station subtree. */
  groups: Set<string> | null;
  /** The devices the listener asked for (`?deviceIds=a,b`), or every device it may see. */
  devices: Set<string> | null;
  /** A batch channel's messages of this tick, serialised, waiting for the tick's one frame. */
  pending: string[];
}

/** A browser that reads slower than messages come gets the newest ones, not an ever-growing queue. */
const MAX_BUFFERED_BYTES = 512 * 1024;
/** A batch channel's frame holds this many messages at most: a long turn of a busy event loop does not hold them all back. */
const MAX_FRAME_MESSAGES = 500;

/** Where a message goes: its tenant, and for group-scoped channels the group it concerns. */
export interface Delivery {
  tenantId: string;
  groupId?: string | null;
  deviceId?: string | null;
}

/**
 * The websocket feeds of the route table's `channels`: each is a GET route upgraded to a websocket after
 * the same access control as every route (session cookie or Authentication header, the channel's
 * permission); a message reaches only listeners of its own tenant (and group subtree, when scoped so).
 */
export async function registerChannels<P extends FastifyTypeProvider>(
  app: AnyFastify<P>,
  channels: Record<string, ChannelSpec>,
  lookups: Lookups,
) {
  await app.register(websocket, { options: { maxPayload: 64 * 1024 } });
  const listeners = new Map<string, Set<Listener>>();
  const inbound = new Map<string, LiveInboundHandler>();
  /** Listeners of batch channels with messages waiting, sent together once the tick's callbacks have run. */
  const waiting = new Set<Listener>();
  let flushing: NodeJS.Immediate | null = null;
  const send = (l: Listener, text: string) => {
    if (l.socket.readyState === l.socket.OPEN && l.socket.bufferedAmount < MAX_BUFFERED_BYTES) l.socket.send(text);
  };
  const sendPending = (l: Listener) => {
    send(l, l.pending.length === 1 ? l.pending[0]! : `[${l.pending.join(',')}]`);
    l.pending = [];
    waiting.delete(l);
  };
  const flush = () => {
    flushing = null;
    for (const l of waiting) sendPending(l);
  };
  for (const [name, spec] of Object.entries(channels)) {
    const set = new Set<Listener>();
    listeners.set(name, set);
    app.get(spec.path, { websocket: true, config: { permission: spec.permission }, schema: { hide: true } }, async (socket, request) => {
      const principal = request.principal as Principal;
      const groups =
        spec.scope === 'group' && principal.stationId ? new Set(await lookups.groupSubtree(principal.tenantId, principal.stationId)) : null;
      const asked = (request.query as { deviceIds?: unknown } | undefined)?.deviceIds;
      const devices = typeof asked === 'string' && asked.length > 0 ? new Set(asked.split(',').slice(0, 100)) : null;
      const listener: Listener = { socket, tenantId: principal.tenantId, groups, devices, pending: [] };
      set.add(listener);
      socket.on('close', () => {
        set.delete(listener);
        waiting.delete(listener);
      });
      // Listeners only listen, unless the channel declares what they may send (validated like any input).
      socket.on('message', (raw: Buffer) => {
        if (!spec.inbound) return;
        let body: unknown;
        try {
          body = JSON.parse(raw.toString('utf8'));
        } catch {
          return;
        }
        const parsed = spec.inbound.safeParse(body);
        if (!parsed.success) return;
        inbound.get(name)?.(parsed.data, {
          tenantId: principal.tenantId,
          groups,
          devices,
          reply: (message) => {
            if (socket.readyState === socket.OPEN) socket.send(JSON.stringify(spec.message.parse(message)));
          },
        });
      });
    });
  }
  return {
    publish(name: string, delivery: Delivery, message: unknown) {
      const spec = channels[name];
      if (!spec) throw new Error(`no channel ${name}`);
      const text = JSON.stringify(spec.message.parse(message));
      for (const l of listeners.get(name) ?? []) {
        if (l.tenantId !== delivery.tenantId) continue;
        if (l.groups && (!delivery.groupId || !l.groups.has(delivery.groupId))) continue;
        if (l.devices && (!delivery.deviceId || !l.devices.has(delivery.deviceId))) continue;
        if (!spec.batch) send(l, text);
        else {
          l.pending.push(text);
          waiting.add(l);
          if (l.pending.length >= MAX_FRAME_MESSAGES) sendPending(l);
          else flushing ??= setImmediate(flush);
        }
      }
    },
    listeners: (name: string) => listeners.get(name)?.size ?? 0,
    onInbound(name: string, handler: LiveInboundHandler) {
      inbound.set(name, handler);
    },
  };
}
export type ChannelHub = Awaited<ReturnType<typeof registerChannels>>;

/** How often the activity feed looks for its first listener, and meanwhile moves its start to the log's head. */
const ACTIVITY_IDLE_MS = 500;

/**
 * The activity channel: every event of the log, told to the listeners of its tenant. Most of the time nobody
 * listens (and a bulk import appends 100,000 events), so the log is read only while someone does. Meanwhile the
 * feed moves its start to the head it read while nobody listened: a first listener is fed from a position taken
 * before it came, so no event committed after it connected is missed.
 */
export async function feedActivity(store: EventStore, hub: ChannelHub, idleMs = ACTIVITY_IDLE_MS): Promise<Subscription> {
  const toMessage = (e: StoredEvent) => ({
    eventId: e.id,
    eventType: e.type,
    stream: e.streamName,
    actorKind: e.metadata.actor.kind,
    actorId: e.metadata.actor.id,
    occurredAt: e.metadata.occurredAt,
    position: e.position,
  });
  const listening = () => hub.listeners('activity.live') > 0;
  /** Every event up to here was told to the listeners of the time, or had none. */
  let from = await store.headPosition();
  let reading: Subscription | null = null;
  let stopped = false;
  const tick = async () => {
    if (listening()) {
      reading ??= store.subscribe({
        after: from,
        onEvents: async (events) => {
          for (const e of events) hub.publish('activity.live', { tenantId: e.metadata.tenantId }, toMessage(e));
          from = events[events.length - 1]!.position;
        },
      });
      return;
    }
    if (reading) {
      const done = reading;
      reading = null;
      await done.stop();
    }
    // Not waiting for the writes running now: what they commit comes after this head all the same, and under a steady
    // stream of commits (an OTA rollout's reports) the wait polled the head every 2 ms, hundreds of reads a second.
    const head = await store.headPosition({ waitForRunning: false });
    // Read before anyone listened (checked after the read): nothing after it can be someone's.
    if (!listening()) from = head;
  };
  let ticking: Promise<void> | null = null;
  const timer = setInterval(() => {
    // One tick at a time (a head read may wait for a long transaction); a failed one is tried again at the next.
    if (ticking || stopped) return;
    ticking = tick()
      .catch(() => {})
      .finally(() => (ticking = null));
  }, idleMs);
  timer.unref();
  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      await ticking;
      await reading?.stop();
    },
  };
}
