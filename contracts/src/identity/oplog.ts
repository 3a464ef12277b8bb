import { z } from 'zod';

/** One line of the operation log: who did what, when, from where. */
export const oplogRow = z.object({
  position: z.string(),
  eventId: z.string(),
  occurredAt: z.string(),
  actorKind: z.string(),
  actorId: z.string(),
  actorName: z.string().nullable(),
  eventType: z.string(),
  stream: z.string(),
  /** The target's name when the log knows it (a user's username, a role's name, ...). */
  targetName: z.string().nullable(),
  ip: z.string().nullable(),
  correlationId: z.string(),
});
export type OplogRow = z.infer<typeof oplogRow>;
export const oplogQuery = z
  .object({
    actor: z.string().trim().max(64).optional(),
    eventType: z.string().trim().max(64).optional(),
    from: z.iso.datetime({ offset: true }).optional(),
    to: z.iso.datetime({ offset: true }).optional(),
    format: z.enum(['json', 'csv']).default('json'),
  })
  .strict();
export const oplogSortable = ['occurredAt', 'eventType', 'actorId'] as const;
