import type { ReportEvent, ReportFields } from '@iot/contracts';
import { recordDecider, type RecordDecider } from '../shared/record-decider.ts';

/** A saved report is a record an operator keeps: created, edited (its schedule with it), deleted. */
export const reportDecider = recordDecider<ReportFields>()(
  { created: 'ReportCreated', updated: 'ReportUpdated', deleted: 'ReportDeleted' },
  'reportId',
) satisfies RecordDecider<ReportFields, ReportEvent>;
export const reportStream = (tenantId: string, reportId: string) => `report-${tenantId}.${reportId}`;
