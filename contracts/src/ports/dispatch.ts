import type { Actor } from '../event.ts';

/** Who a dispatched command acts for, and what caused it (the event a workflow or reactor reacted to). */
export interface DispatchMetadata {
  tenantId: string;
  actor: Actor;
  correlationId: string;
  causationId: string | null;
  /** A step dispatched twice with the same key applies once: what makes a workflow's steps idempotent. */
  idempotencyKey: string;
  ip?: string;
}

/** A command as code that reacts issues it: its type names the handler, the rest is its payload. */
export interface DispatchedCommand {
  type: string;
  [field: string]: unknown;
}

export interface DispatchResult {
  /** Position of the last event appended (or of the earlier try with the same key), null when nothing changed. */
  position: string | null;
  /** The aggregate the command made or found (an alarm raised, or the active one that was already there). */
  id?: string;
}

/**
 * How workflows, reactors and bus consumers issue commands without importing `command/`
 * (ARCHITECTURE.md "Layout"): infra/ binds it to the command handlers.
 */
export type Dispatch = (command: DispatchedCommand, metadata: DispatchMetadata) => Promise<DispatchResult>;
