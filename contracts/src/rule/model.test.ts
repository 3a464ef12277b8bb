import { describe, expect, it } from 'vitest';
import { compileExpression, expressionFault } from './expression.ts';
import { defaultRootChain, ruleChainDefinition, ruleChainFile, RULE_CHAIN_FORMAT } from './model.ts';

const chain = {
  name: 'Hot rooms',
  firstNodeId: 'f',
  nodes: [
    { id: 'f', name: 'Hot?', kind: 'filter', config: { expression: 'msg.temp > 30.0' } },
    { id: 'a', name: 'Alarm', kind: 'createAlarm', config: { alarmName: 'Hot', level: 3 } },
    { id: 'w', name: 'Store', kind: 'warehousing', config: {} },
  ],
  links: [
    { from: 'f', to: 'a', label: 'True' },
    { from: 'f', to: 'w', label: 'False' },
  ],
};
const faults = (input: unknown) => ruleChainDefinition.safeParse(input).error?.issues.map((i) => `${i.path.join('.')}: ${i.message}`) ?? [];

describe('rule chain definition', () => {
  it('takes a valid chain and the default root chain', () => {
    expect(faults(chain)).toEqual([]);
    expect(faults(defaultRootChain)).toEqual([]);
  });

  it('names each fault by its path: a bad expression, an unknown node, a label the node cannot give, a cycle', () => {
    expect(
      faults({ ...chain, nodes: chain.nodes.map((n) => (n.id === 'f' ? { ...n, config: { expression: 'msg.temp >' } } : n)) }),
    ).toEqual([expect.stringMatching(/^nodes\.0\.config\.expression: invalid expression: /)]);
    expect(faults({ ...chain, links: [...chain.links, { from: 'w', to: 'nowhere', label: 'Success' }] })).toEqual([
      'links.2.to: no such node',
    ]);
    expect(faults({ ...chain, links: [{ from: 'f', to: 'a', label: 'Success' }] })).toEqual([
      'links.0.label: a filter node links by True, False, Failure',
    ]);
    expect(faults({ ...chain, links: [...chain.links, { from: 'w', to: 'f', label: 'Success' }] })).toEqual([
      'links.1: a cycle: f → w → f',
    ]);
    expect(faults({ ...chain, firstNodeId: 'x' })).toEqual(['firstNodeId: no such node']);
  });

  it('round-trips through the export file', () => {
    const file = ruleChainFile.parse({ format: RULE_CHAIN_FORMAT, formatVersion: 1, chain });
    const again = ruleChainFile.parse(JSON.parse(JSON.stringify(file)));
    expect(again).toEqual(file);
  });
});

describe('expressions', () => {
  it('evaluate over a message with plain numbers out', () => {
    expect(compileExpression('msg.temp * 2.0 + 1.0')({ msg: { temp: 20 } })).toBe(41);
    expect(compileExpression('int(msg.temp)')({ msg: { temp: 20.7 } })).toBe(20);
    expect(compileExpression('msgType == "telemetry" && has(msg.temp)')({ msgType: 'telemetry', msg: { temp: 1 } })).toBe(true);
  });

  it('refuses a hostile expression before it runs: nested comprehensions, size, depth', () => {
    expect(expressionFault('msg.l.map(a, msg.l.map(b, msg.l.map(c, a + b + c)))')).toMatch(/may not hold another/);
    expect(expressionFault('1.0 + '.repeat(300) + '1.0')).toMatch(/longer than/);
    expect(expressionFault('(((((((((((((((((((((((((((1)))))))))))))))))))))))))))')).not.toBeNull();
    expect(expressionFault('msg.l.map(a, a * 2.0).exists(b, b > 1.0)')).toBeNull();
  });
});
