import type { DomainEvent } from '../event.ts';
import type { StatTaskFields } from './model.ts';

/**
 * What can happen to a statistic task: created stopped or enabled, edited, enabled or stopped after a confirm, deleted;
 * computed over a past range (a backfill, whose progress its worker keeps) and that backfill cancelled.
 */
export type StatTaskEvent =
  | DomainEvent<'StatTaskCreated', StatTaskFields & { taskId: string; enabled: boolean }>
  | DomainEvent<'StatTaskUpdated', StatTaskFields & { taskId: string }>
  | DomainEvent<'StatTaskEnabled', { taskId: string }>
  | DomainEvent<'StatTaskStopped', { taskId: string }>
  | DomainEvent<'StatTaskDeleted', { taskId: string }>
  | DomainEvent<'StatTaskBackfillRequested', { taskId: string; backfillId: string; from: string; to: string }>
  | DomainEvent<'StatTaskBackfillCancelled', { taskId: string; backfillId: string }>;
export type StatTaskEventType = StatTaskEvent['type'];
