import { describe, expect, it } from 'vitest';
import type { TopoElementEvent, TopoElementFields } from '@iot/contracts';
import { codeOf, scenario } from '../decider-testing.ts';
import { topoElementDecider } from './topo-element.ts';

const blower: TopoElementFields = { name: 'Blower', width: 80, height: 60, remark: null, imageFileId: null };
const created: TopoElementEvent = { type: 'TopoElementCreated', data: { elementId: 'e1', ...blower } };
const deleted: TopoElementEvent = { type: 'TopoElementDeleted', data: { elementId: 'e1' } };
const { given } = scenario(topoElementDecider);

describe('topo element decider', () => {
  it('creates an element once', () => {
    expect(given([]).when({ type: 'CreateTopoElement', elementId: 'e1', fields: blower })).toEqual([created]);
    expect(codeOf(() => given([created]).when({ type: 'CreateTopoElement', elementId: 'e1', fields: blower }))).toBe('CONFLICT');
  });

  it('updates a changed size; the same fields again append nothing', () => {
    expect(given([created]).when({ type: 'UpdateTopoElement', elementId: 'e1', fields: { ...blower } })).toEqual([]);
    const wider = { ...blower, width: 120, imageFileId: 'f1' };
    expect(given([created]).when({ type: 'UpdateTopoElement', elementId: 'e1', fields: wider })).toEqual([
      { type: 'TopoElementUpdated', data: { elementId: 'e1', ...wider } },
    ]);
  });

  it('refuses to update or delete an element that does not exist or was deleted', () => {
    expect(codeOf(() => given([]).when({ type: 'UpdateTopoElement', elementId: 'e1', fields: blower }))).toBe('NOT_FOUND');
    expect(codeOf(() => given([created, deleted]).when({ type: 'DeleteTopoElement', elementId: 'e1', usedBy: [] }))).toBe('NOT_FOUND');
    expect(given([created]).when({ type: 'DeleteTopoElement', elementId: 'e1', usedBy: [] })).toEqual([deleted]);
  });

  it('refuses to delete an element that a diagram places, naming the diagrams', () => {
    const refused = () => given([created]).when({ type: 'DeleteTopoElement', elementId: 'e1', usedBy: ['Hall 1', 'Hall 2'] });
    expect(codeOf(refused)).toBe('TOPO_ELEMENT_IN_USE');
    expect(() => refused()).toThrow(expect.objectContaining({ details: { diagrams: 'Hall 1, Hall 2' } }));
  });
});
