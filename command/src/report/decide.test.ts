import { describe, expect, it } from 'vitest';
import { reportFields, type ReportEvent } from '@iot/contracts';
import { codeOf, scenario } from '../decider-testing.ts';
import { reportDecider } from './decide.ts';

const fields = reportFields.parse({
  name: 'Daily temperatures',
  deviceIds: ['d1', 'd2'],
  variables: ['temperature'],
  fn: 'avg',
  cycle: '1h',
  frequency: 'daily',
  contactIds: ['c1'],
});
const created: ReportEvent = { type: 'ReportCreated', data: { reportId: 'r1', ...fields } };
const { given } = scenario(reportDecider);

describe('report decider', () => {
  it('saves a report once, edits it only when it changes, deletes it once', () => {
    expect(given([]).when({ type: 'Create', id: 'r1', fields })).toEqual([created]);
    expect(codeOf(() => given([created]).when({ type: 'Create', id: 'r1', fields }))).toBe('CONFLICT');
    expect(given([created]).when({ type: 'Update', id: 'r1', fields })).toEqual([]);
    expect(given([created]).when({ type: 'Update', id: 'r1', fields: { ...fields, frequency: 'weekly' } })).toEqual([
      { type: 'ReportUpdated', data: { reportId: 'r1', ...fields, frequency: 'weekly' } },
    ]);
    const deleted: ReportEvent = { type: 'ReportDeleted', data: { reportId: 'r1' } };
    expect(given([created]).when({ type: 'Delete', id: 'r1' })).toEqual([deleted]);
    expect(codeOf(() => given([created, deleted]).when({ type: 'Delete', id: 'r1' }))).toBe('NOT_FOUND');
  });

  it('asks for devices, a group or both, and contacts for a schedule', () => {
    expect(reportFields.safeParse({ ...fields, deviceIds: [] }).success).toBe(false);
    expect(reportFields.safeParse({ ...fields, groupId: 'g1' }).success).toBe(true);
    expect(reportFields.safeParse({ ...fields, deviceIds: [], groupId: null }).success).toBe(false);
    expect(reportFields.safeParse({ ...fields, deviceIds: [], groupId: 'g1' }).success).toBe(true);
    expect(reportFields.safeParse({ ...fields, contactIds: [] }).success).toBe(false);
    expect(reportFields.safeParse({ ...fields, contactIds: [], frequency: 'none' }).success).toBe(true);
  });
});
