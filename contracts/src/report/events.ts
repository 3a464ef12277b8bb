import type { DomainEvent } from '../event.ts';
import type { ReportFields } from './model.ts';

/** What can happen to a saved report: created, edited (its schedule with it), deleted. Its sendings are claim rows, not events. */
export type ReportEvent =
  | DomainEvent<'ReportCreated', ReportFields & { reportId: string }>
  | DomainEvent<'ReportUpdated', ReportFields & { reportId: string }>
  | DomainEvent<'ReportDeleted', { reportId: string }>;
export type ReportEventType = ReportEvent['type'];
