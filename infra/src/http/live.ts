import type { LiveDelivery, LiveFeed } from '@iot/contracts/ports/live.ts';
import type { ChannelHub } from './channels.ts';

/**
 * The live port before and after the HTTP server exists: handlers and workflows are built first, the
 * websocket hub when the API starts; a process without an API (projections only) publishes to nobody.
 */
export function createLiveRelay(): LiveFeed & { attach(hub: ChannelHub): void } {
  let hub: ChannelHub | null = null;
  return {
    publish(channel: string, delivery: LiveDelivery, message: unknown) {
      hub?.publish(channel, delivery, message);
    },
    listening: (channel: string) => (hub?.listeners(channel) ?? 0) > 0,
    attach(next) {
      hub = next;
    },
  };
}
