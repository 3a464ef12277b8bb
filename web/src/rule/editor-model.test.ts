import { describe, expect, it } from 'vitest';
import { faultsOf, fieldsOf, labelsOf, type EditorChain, type EditorNode } from './editor-model.ts';

const at = { x: 0, y: 0 };
const node = (id: string, kind: EditorNode['kind'], config: Record<string, unknown> = {}): EditorNode => ({
  id,
  name: `N-${id}`,
  kind,
  config,
  position: at,
});
const chainOf = (nodes: EditorNode[], links: EditorChain['links']): EditorChain => ({
  name: 'c',
  description: null,
  firstNodeId: nodes[0]!.id,
  nodes,
  links,
});
const keys = (chain: EditorChain) => faultsOf(chain).faults.map((f) => `${f.key}:${f.nodeId}`);

describe('the editor checks a chain before it is saved', () => {
  it('passes a sound chain, and gives it as the contract takes it', () => {
    const chain = chainOf(
      [node('f', 'filter', { expression: 'msg.t > 1.0' }), node('w', 'warehousing')],
      [{ from: 'f', to: 'w', label: 'True' }],
    );
    expect(faultsOf(chain).faults).toEqual([]);
    expect(faultsOf(chain).chain?.nodes).toHaveLength(2);
  });

  it('names a cycle by the nodes along it', () => {
    const chain = chainOf(
      [node('a', 'transform'), node('b', 'transform')],
      [
        { from: 'a', to: 'b', label: 'Success' },
        { from: 'b', to: 'a', label: 'Success' },
      ],
    );
    expect(faultsOf(chain).faults).toEqual([{ nodeId: 'a', key: 'editor.faultCycle', values: { path: 'N-a → N-b → N-a' } }]);
  });

  it('names a filter linking nowhere, a node no message reaches, and settings that do not pass their schema', () => {
    const chain = chainOf([node('f', 'filter', { expression: 'msg.t >' }), node('w', 'warehousing')], []);
    expect(keys(chain)).toEqual(['editor.faultConfig:f', 'editor.faultDangling:f', 'editor.faultUnreached:w']);
  });

  it('offers the labels each node links by, and a form field per setting', () => {
    expect(labelsOf(node('f', 'filter', { expression: 'true' }))).toEqual(['True', 'False', 'Failure']);
    expect(labelsOf(node('s', 'switch', { cases: [{ label: 'hot', expression: 'true' }] }))).toEqual(['hot', 'Default', 'Failure']);
    expect(fieldsOf('createAlarm').map((f) => `${f.name}:${f.kind.type}`)).toEqual([
      'alarmName:text',
      'level:number',
      'variable:text',
      'text:text',
      'cause:text',
    ]);
    expect(fieldsOf('enrich').map((f) => f.kind.type)).toEqual(['boolean', 'boolean', 'json']);
    expect(fieldsOf('router')[0]!.kind).toEqual({ type: 'enum', options: ['messageType', 'device', 'product'] });
  });
});
