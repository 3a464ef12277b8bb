import { z } from 'zod';
import { instant } from './common.ts';

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
    /** The kind of entity changed: the aggregate of its stream (device, product, template, user, role, group, ...). */
    entityType: z
      .string()
      .trim()
      .regex(/^[a-z]{1,32}$/)
      .optional(),
    /** One entity: its id, or a part of its name. */
    entity: z.string().trim().max(64).optional(),
    from: instant.optional(),
    to: instant.optional(),
    format: z.enum(['json', 'csv', 'xlsx']).default('json'),
  })
  .strict();
export const oplogSortable = ['occurredAt', 'eventType', 'actorId'] as const;
