/** Where a live message goes: its tenant, and for group-scoped channels the group it concerns. */
export interface LiveDelivery {
  tenantId: string;
  groupId?: string | null;
  /** The device a message concerns: listeners that asked for some devices only get theirs. */
  deviceId?: string | null;
}

/** Pushes a message to the listeners of a websocket channel of the route table (import progress, live data). */
export interface LiveFeed {
  publish(channel: string, delivery: LiveDelivery, message: unknown): void;
  /** Whether anyone listens: spares building messages nobody reads. */
  listening(channel: string): boolean;
  /** Handles what listeners send on a channel that declares `inbound` (pass-through); one handler per channel. */
  onInbound?(channel: string, handler: LiveInboundHandler): void;
}

/** A listener that sent a message: its tenant and scope as checked at subscribe, and a way to answer it alone. */
export interface LiveSender {
  tenantId: string;
  /** The caller's current group subtree (group-scoped channels), null when not narrowed. */
  groups: Set<string> | null;
  /** The devices the listener asked for, null for all it may see. */
  devices: Set<string> | null;
  reply(message: unknown): void;
}
export type LiveInboundHandler = (message: unknown, from: LiveSender) => void;
