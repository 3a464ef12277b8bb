import { describe, expect, it } from 'vitest';
import type { DiagramEvent, DiagramFields } from '@iot/contracts';
import { codeOf, scenario } from '../decider-testing.ts';
import { diagramDecider } from './decide.ts';

const room: DiagramFields = {
  name: 'Pump room',
  remark: null,
  background: '#0B1A3A',
  widgets: [
    {
      ...{ id: 'w1', kind: 'value', x: 10, y: 20, label: 'Pressure', deviceId: 'd1', property: 'pressure', min: null, max: null },
      ...{ onValue: null, offValue: null, width: null, height: null, elementId: null, fileId: null, thresholds: [], command: null },
    },
  ],
  edges: [],
  canvas: { lineStyle: 'curve', arrow: 'triangle', scale: 1, locked: false },
};
const created: DiagramEvent = { type: 'DiagramCreated', data: { diagramId: 'g1', ...room } };
const deleted: DiagramEvent = { type: 'DiagramDeleted', data: { diagramId: 'g1' } };
const { given } = scenario(diagramDecider);

describe('diagram decider', () => {
  it('creates a diagram once', () => {
    expect(given([]).when({ type: 'CreateDiagram', diagramId: 'g1', fields: room })).toEqual([created]);
    expect(codeOf(() => given([created]).when({ type: 'CreateDiagram', diagramId: 'g1', fields: room }))).toBe('CONFLICT');
  });

  it('saves moved widgets; the same diagram again appends nothing', () => {
    expect(given([created]).when({ type: 'SaveDiagram', diagramId: 'g1', fields: { ...room } })).toEqual([]);
    const moved = { ...room, widgets: [{ ...room.widgets[0]!, x: 99 }] };
    expect(given([created]).when({ type: 'SaveDiagram', diagramId: 'g1', fields: moved })).toEqual([
      { type: 'DiagramSaved', data: { diagramId: 'g1', ...moved } },
    ]);
  });

  it('refuses to save or delete a diagram that does not exist or was deleted', () => {
    expect(codeOf(() => given([]).when({ type: 'SaveDiagram', diagramId: 'g1', fields: room }))).toBe('NOT_FOUND');
    expect(codeOf(() => given([created, deleted]).when({ type: 'DeleteDiagram', diagramId: 'g1' }))).toBe('NOT_FOUND');
    expect(codeOf(() => given([created, deleted]).when({ type: 'SaveDiagram', diagramId: 'g1', fields: room }))).toBe('NOT_FOUND');
  });
});
