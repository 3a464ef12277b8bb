import { z } from 'zod';

/** Who caused a change: a person, a device or the platform itself. */
export const actor = z.object({
  kind: z.enum(['user', 'device', 'app', 'system']),
  id: z.string(),
});
export type Actor = z.infer<typeof actor>;

/** Metadata every stored event carries (ARCHITECTURE.md "Event store"). */
export const eventMetadata = z.object({
  tenantId: z.string(),
  actor,
  correlationId: z.string(),
  causationId: z.string().nullable(),
  occurredAt: z.string(),
  schemaVersion: z.number().int().min(1),
  idempotencyKey: z.string().optional(),
  ip: z.string().optional(),
});
export type EventMetadata = z.infer<typeof eventMetadata>;

/** The platform's own tenant: the system administrator lives here. */
export const SYSTEM_TENANT = 'system';

/** A domain event as a decider sees it: its type and payload, without storage details. */
export interface DomainEvent<T extends string = string, D extends object = object> {
  type: T;
  data: D;
}
