import type { LiveDelivery, LiveFeed, LiveInboundHandler } from '@iot/contracts/ports/live.ts';
import type { ChannelHub } from './channels.ts';

/**
 * The live port before and after the HTTP server exists: handlers and workflows are built first, the
 * websocket hub when the API starts; a process without an API (projections only) publishes to nobody.
 */
export function createLiveRelay(): LiveFeed & { attach(hub: ChannelHub): void } {
  let hub: ChannelHub | null = null;
  const inbound = new Map<string, LiveInboundHandler>();
  return {
    publish(channel: string, delivery: LiveDelivery, message: unknown) {
      hub?.publish(channel, delivery, message);
    },
    listening: (channel: string) => (hub?.listeners(channel) ?? 0) > 0,
    onInbound(channel, handler) {
      inbound.set(channel, handler);
      hub?.onInbound(channel, handler);
    },
    attach(next) {
      hub = next;
      for (const [channel, handler] of inbound) next.onInbound(channel, handler);
    },
  };
}
