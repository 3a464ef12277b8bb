import { describe, expect, it } from 'vitest';
import { ruleChainDefinition, type RuleChainDefinition, type RuleChainDefinitionIn, type RuleMessage } from '@iot/contracts';
import type { DispatchedCommand, DispatchMetadata } from '@iot/contracts/ports/dispatch.ts';
import { chainAlarmRuleId, runChain, type RuleEnginePorts } from './engine.ts';

const message = (over: Partial<RuleMessage> = {}): RuleMessage => ({
  id: 'm1',
  type: 'telemetry',
  tenantId: 't1',
  deviceId: 'd1',
  productId: 'p1',
  ts: '2026-05-03T14:02:00.000Z',
  data: { temp: 31.5, hum: 40 },
  metadata: {},
  ...over,
});

/** Ports that record what the chain asks of them. */
function fakePorts(chains: Record<string, RuleChainDefinition> = {}) {
  const dispatched: Array<{ command: DispatchedCommand; metadata: DispatchMetadata }> = [];
  const slept: number[] = [];
  const stored: RuleMessage[] = [];
  const notified: Array<Parameters<RuleEnginePorts['notify']>[0]> = [];
  const forwarded: Array<Parameters<RuleEnginePorts['forward']>[0]> = [];
  const ports: RuleEnginePorts = {
    notify: async (n) => {
      notified.push(n);
    },
    forward: async (f) => {
      forwarded.push(f);
    },
    async dispatch(command, metadata) {
      dispatched.push({ command, metadata });
      return { position: '1:1', id: command.type === 'RaiseAlarm' ? 'alarm-1' : undefined };
    },
    lookups: {
      device: async (_tenant, deviceId) => (deviceId === 'd1' ? { name: 'Boiler', sn: 'SN1', productId: 'p1', groupId: 'g1' } : null),
      product: async (_tenant, productId) => (productId === 'p1' ? { name: 'Sensor', code: 'S1' } : null),
      latest: async (_tenant, _device, ids) => Object.fromEntries(ids.filter((id) => id === 'hum').map((id) => [id, 41])),
    },
    chain: async (_tenant, chainId) => chains[chainId] ?? null,
    sleep: async (ms) => {
      slept.push(ms);
    },
    store: async (m) => {
      stored.push(m);
    },
  };
  return { ports, dispatched, slept, stored, notified, forwarded };
}

const chainOf = (nodes: RuleChainDefinitionIn['nodes'], links: RuleChainDefinitionIn['links'] = []) =>
  ruleChainDefinition.parse({ name: 'test', firstNodeId: nodes[0]!.id, nodes, links });
const node = <K extends string>(id: string, kind: K, config: object = {}) => ({ id, name: id, kind, config }) as never;
const link = (from: string, to: string, label: string) => ({ from, to, label });
/** The ids of the nodes a message reached, in order, with the label each went out by. */
const visits = (result: Awaited<ReturnType<typeof runChain>>) => result.traces.map((t) => `${t.nodeId}:${t.labels.join('|')}`);

describe('rule engine nodes', () => {
  it('router: routes by message type, device or product, else Other', async () => {
    const { ports } = fakePorts();
    const chain = chainOf(
      [node('r', 'router', { by: 'messageType' }), node('t', 'warehousing'), node('o', 'warehousing')],
      [link('r', 't', 'telemetry'), link('r', 'o', 'Other')],
    );
    expect(visits(await runChain(ports, 'c', chain, message()))).toEqual(['r:telemetry', 't:Success']);
    expect(visits(await runChain(ports, 'c', chain, message({ type: 'presence' })))).toEqual(['r:Other', 'o:Success']);
    const byProduct = chainOf([node('r', 'router', { by: 'product' }), node('p', 'warehousing')], [link('r', 'p', 'p1')]);
    expect(visits(await runChain(ports, 'c', byProduct, message()))).toEqual(['r:p1', 'p:Success']);
    const byDevice = chainOf([node('r', 'router', { by: 'device' }), node('p', 'warehousing')], [link('r', 'p', 'd2')]);
    expect(visits(await runChain(ports, 'c', byDevice, message()))).toEqual(['r:Other']);
  });

  it('switch: the first case whose expression holds, else Default', async () => {
    const { ports } = fakePorts();
    const chain = chainOf(
      [
        node('s', 'switch', {
          cases: [
            { label: 'hot', expression: 'msg.temp > 30.0' },
            { label: 'warm', expression: 'msg.temp > 20.0' },
          ],
        }),
        node('h', 'warehousing'),
        node('w', 'warehousing'),
        node('d', 'warehousing'),
      ],
      [link('s', 'h', 'hot'), link('s', 'w', 'warm'), link('s', 'd', 'Default')],
    );
    expect(visits(await runChain(ports, 'c', chain, message()))).toEqual(['s:hot', 'h:Success']);
    expect(visits(await runChain(ports, 'c', chain, message({ data: { temp: 25 } })))).toEqual(['s:warm', 'w:Success']);
    expect(visits(await runChain(ports, 'c', chain, message({ data: { temp: 5 } })))).toEqual(['s:Default', 'd:Success']);
  });

  it('filter: True or False; a missing field goes to Failure with the error captured', async () => {
    const { ports } = fakePorts();
    const chain = chainOf(
      [
        node('f', 'filter', { expression: 'msg.temp > 30.0 && msgType == "telemetry"' }),
        node('y', 'warehousing'),
        node('n', 'warehousing'),
      ],
      [link('f', 'y', 'True'), link('f', 'n', 'False'), link('f', 'n', 'Failure')],
    );
    expect(visits(await runChain(ports, 'c', chain, message()))).toEqual(['f:True', 'y:Success']);
    expect(visits(await runChain(ports, 'c', chain, message({ data: { temp: 3 } })))).toEqual(['f:False', 'n:Success']);
    const failed = await runChain(ports, 'c', chain, message({ data: { hum: 3 } }));
    expect(visits(failed)).toEqual(['f:Failure', 'n:Success']);
    expect(failed.failures).toEqual([
      expect.objectContaining({
        nodeId: 'f',
        kind: 'filter',
        path: ['f'],
        message: message({ data: { hum: 3 } }),
        error: expect.stringMatching(/temp/),
      }),
    ]);
  });

  it('transform: sets fields from expressions in order, each seeing the ones before, and removes fields', async () => {
    const { ports } = fakePorts();
    const chain = chainOf([
      node('x', 'transform', {
        set: [
          { field: 'tempF', expression: 'msg.temp * 9.0 / 5.0 + 32.0' },
          { field: 'hot', expression: 'msg.tempF > 86.0' },
          { field: 'label', expression: 'deviceId + ":" + string(int(msg.temp))' },
        ],
        remove: ['hum'],
      }),
    ]);
    const result = await runChain(ports, 'c', chain, message());
    expect(result.traces[0]!.message.data).toEqual({ temp: 31.5, tempF: 88.7, hot: true, label: 'd1:31' });
  });

  it("enrich: the device's fields, its product and latest values into the metadata; an unknown device fails", async () => {
    const { ports } = fakePorts();
    const chain = chainOf(
      [
        node('e', 'enrich', { device: true, product: true, latest: ['hum', 'pressure'] }),
        node('f', 'filter', { expression: 'metadata.device.name == "Boiler" && metadata.latest.hum == 41.0' }),
      ],
      [link('e', 'f', 'Success')],
    );
    const result = await runChain(ports, 'c', chain, message());
    expect(result.traces[0]!.message.metadata).toEqual({
      device: { name: 'Boiler', sn: 'SN1', productId: 'p1', groupId: 'g1' },
      product: { name: 'Sensor', code: 'S1' },
      latest: { hum: 41 },
    });
    expect(visits(result)).toEqual(['e:Success', 'f:True']);
    const unknown = await runChain(ports, 'c', chain, message({ deviceId: 'ghost' }));
    expect(unknown.failures.map((f) => [f.nodeId, f.error])).toEqual([['e', 'no device ghost']]);
  });

  it('warehousing: stores the message and passes it on', async () => {
    const { ports, stored } = fakePorts();
    await runChain(ports, 'c', chainOf([node('w', 'warehousing')]), message());
    expect(stored).toEqual([message()]);
  });

  it('create and clear alarm: through the dispatch port, one rule per chain node, idempotent per message', async () => {
    const { ports, dispatched } = fakePorts();
    const chain = chainOf(
      [
        node('f', 'filter', { expression: 'msg.temp > 30.0' }),
        node('a', 'createAlarm', { alarmName: 'Too hot', level: 4, variable: 'temp', text: '"temp " + string(msg.temp)' }),
        node('c', 'clearAlarm', { alarmNode: 'a' }),
      ],
      [link('f', 'a', 'True'), link('f', 'c', 'False')],
    );
    const raised = await runChain(ports, 'chain1', chain, message());
    expect(raised.traces.at(-1)!.message.metadata.alarmId).toBe('alarm-1');
    await runChain(ports, 'chain1', chain, message({ id: 'm2', data: { temp: 20 } }));
    expect(dispatched.map((d) => d.command)).toEqual([
      {
        type: 'RaiseAlarm',
        alarm: expect.objectContaining({
          ruleId: chainAlarmRuleId('chain1', 'a'),
          ruleName: 'Too hot',
          deviceId: 'd1',
          level: 4,
          variable: 'temp',
          value: 31.5,
          text: 'temp 31.5',
          at: message().ts,
        }),
      },
      { type: 'ClearRuleAlarm', deviceId: 'd1', ruleId: 'chain:chain1:a', value: null, at: message().ts },
    ]);
    expect(dispatched.map((d) => d.metadata.idempotencyKey)).toEqual(['rule:m1:chain1:a', 'rule:m2:chain1:c']);
  });

  it('command to device: parameters computed from the message, sent through the dispatch port', async () => {
    const { ports, dispatched } = fakePorts();
    const chain = chainOf([
      node('k', 'command', { kind: 'service', identifier: 'setFan', params: [{ name: 'speed', expression: 'msg.temp > 30.0 ? 3 : 1' }] }),
    ]);
    await runChain(ports, 'c', chain, message());
    expect(dispatched.map((d) => d.command)).toEqual([
      { type: 'SendDeviceCommand', deviceId: 'd1', kind: 'service', identifier: 'setFan', params: { speed: 3 } },
    ]);
  });

  it('delay: waits on the clock port, then passes the message on', async () => {
    const { ports, slept } = fakePorts();
    const chain = chainOf([node('z', 'delay', { ms: 1500 }), node('w', 'warehousing')], [link('z', 'w', 'Success')]);
    expect(visits(await runChain(ports, 'c', chain, message()))).toEqual(['z:Success', 'w:Success']);
    expect(slept).toEqual([1500]);
  });

  it('rule chain: runs the running version of another chain, then goes on; a missing chain or a loop of chains fails', async () => {
    const inner = chainOf([node('i', 'filter', { expression: 'msg.nope > 1.0' })]);
    const loop = chainOf([node('again', 'ruleChain', { chainId: 'loop' })]);
    const { ports } = fakePorts({ inner, loop });
    const outer = chainOf([node('call', 'ruleChain', { chainId: 'inner' }), node('w', 'warehousing')], [link('call', 'w', 'Success')]);
    const result = await runChain(ports, 'outer', outer, message());
    expect(visits(result)).toEqual(['i:Failure', 'call:Success', 'w:Success']);
    expect(result.failures.map((f) => [f.chainId, f.path])).toEqual([['inner', ['outer/call', 'inner/i']]]);
    const missing = await runChain(ports, 'outer', chainOf([node('call', 'ruleChain', { chainId: 'gone' })]), message());
    expect(missing.failures.map((f) => f.error)).toEqual(['no rule chain gone']);
    const looped = await runChain(ports, 'loop', loop, message());
    expect(looped.failures.map((f) => f.error)).toEqual(['chains call each other deeper than 8']);
  });

  it('a node that throws never stops the chain: its siblings still run, and the failure keeps the path it took', async () => {
    const { ports, stored } = fakePorts();
    ports.lookups.device = async () => {
      throw new Error('lookup down');
    };
    const chain = chainOf(
      [
        node('x', 'transform', { set: [{ field: 'k', expression: '1' }] }),
        node('e', 'enrich'),
        node('w', 'warehousing'),
        node('log', 'warehousing'),
      ],
      [link('x', 'e', 'Success'), link('x', 'w', 'Success'), link('e', 'log', 'Failure')],
    );
    const result = await runChain(ports, 'c', chain, message());
    expect(visits(result)).toEqual(['x:Success', 'e:Failure', 'w:Success', 'log:Success']);
    expect(result.failures).toEqual([expect.objectContaining({ nodeId: 'e', error: 'lookup down', path: ['x', 'e'] })]);
    expect(stored).toHaveLength(2);
  });

  it('a hostile expression never reaches the engine: refused when the chain is checked', () => {
    const hostile = { expression: 'msg.l.map(a, msg.l.map(b, msg.l.map(c, a + b + c))).size() > 0' };
    const parsed = ruleChainDefinition.safeParse({ name: 'x', firstNodeId: 'f', nodes: [node('f', 'filter', hostile)] });
    expect(parsed.error?.issues.map((i) => i.path.join('.'))).toEqual(['nodes.0.config.expression']);
  });

  it('a chain stored before a check it now fails: that node fails each message, the others run', async () => {
    const { ports } = fakePorts();
    const stale = {
      name: 'stale',
      description: null,
      firstNodeId: 'f',
      nodes: [node('f', 'filter', { expression: 'msg.l.map(a, msg.l.map(b, a)).size() > 0' }), node('w', 'warehousing')],
      links: [link('f', 'w', 'Failure')],
    } as RuleChainDefinition;
    const result = await runChain(ports, 'c', stale, message());
    expect(visits(result)).toEqual(['f:Failure', 'w:Success']);
    expect(result.failures[0]!.error).toMatch(/does not compile/);
  });

  it('notify: an in-app notification with its text computed, once per message and node', async () => {
    const { ports, notified } = fakePorts();
    const chain = chainOf([node('n', 'notify', { subject: 'Hot', content: "'temp ' + string(msg.temp)" })]);
    expect(visits(await runChain(ports, 'c', chain, message()))).toEqual(['n:Success']);
    expect(notified).toEqual([{ tenantId: 't1', sourceKey: 'rule:m1:c:n', deviceId: 'd1', subject: 'Hot', body: 'temp 31.5' }]);
  });

  it('forward: the message into the forwarding outbox, its topic and template filled', async () => {
    const { ports, forwarded } = fakePorts();
    const chain = chainOf(
      [
        node('f', 'forward', { serverId: 'srv1', topic: 'up/{{deviceId}}', payloadTemplate: '{"sn":"{{deviceId}}","v":{{values}}}' }),
        node('g', 'forward', { serverId: 'srv2' }),
      ],
      [link('f', 'g', 'Success')],
    );
    expect(visits(await runChain(ports, 'c', chain, message()))).toEqual(['f:Success', 'g:Success']);
    expect(forwarded[0]).toEqual({
      tenantId: 't1',
      ruleId: 'chain:c:f',
      serverId: 'srv1',
      deviceId: 'd1',
      topic: 'up/d1',
      payload: '{"sn":"d1","v":{"temp":31.5,"hum":40}}',
      messageId: 'm1',
    });
    expect(JSON.parse(forwarded[1]!.payload)).toMatchObject({ deviceId: 'd1', type: 'telemetry', values: { temp: 31.5, hum: 40 } });
  });

  it('notify and forward that throw go out by Failure, and the chain goes on', async () => {
    const { ports } = fakePorts();
    ports.forward = async () => {
      throw new Error('outbox down');
    };
    const chain = chainOf(
      [node('f', 'forward', { serverId: 'srv1' }), node('n', 'notify', { subject: 'S', content: "'x'" })],
      [link('f', 'n', 'Failure')],
    );
    const result = await runChain(ports, 'c', chain, message());
    expect(visits(result)).toEqual(['f:Failure', 'n:Success']);
    expect(result.failures).toMatchObject([{ nodeId: 'f', error: 'outbox down', path: ['f'] }]);
  });

  it('a dry run marks the nodes that act outside the chain, and each trace holds what entered and what left', async () => {
    const { ports } = fakePorts();
    const chain = chainOf(
      [node('t', 'transform', { set: [{ field: 'f', expression: 'msg.temp * 1.8 + 32.0' }] }), node('w', 'warehousing')],
      [link('t', 'w', 'Success')],
    );
    const result = await runChain(ports, 'c', chain, message(), { dryRun: true });
    expect(result.traces.map((t) => [t.nodeId, t.dryRun])).toEqual([
      ['t', false],
      ['w', true],
    ]);
    expect(result.traces[0]!.input.data).toEqual({ temp: 31.5, hum: 40 });
    expect(result.traces[0]!.message.data.f).toBeCloseTo(88.7);
  });
});
