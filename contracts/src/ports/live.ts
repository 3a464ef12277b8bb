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
}
