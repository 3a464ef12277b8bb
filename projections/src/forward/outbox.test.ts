import { describe, expect, it } from 'vitest';
import { groupOutboxItems, type OutboxItem } from './outbox.ts';

const item = (deviceId: string, n: number, more: Partial<OutboxItem> = {}): OutboxItem => ({
  tenantId: 't1',
  ruleId: 'chain:root:f',
  serverId: 's1',
  deviceId,
  topic: null,
  payload: `{"n":${n}}`,
  messageId: `b.${deviceId}.${n}`,
  ...more,
});

describe('outbox rows of a chain batch', () => {
  it("puts each device's messages in one row, in order, rows in the order of each device's first message", () => {
    const rows = groupOutboxItems([item('d1', 0), item('d2', 0), item('d1', 1), item('d2', 1), item('d1', 2)]);
    expect(rows.map((r) => [r.deviceId, r.messages ?? 1])).toEqual([
      ['d1', 3],
      ['d2', 2],
    ]);
    expect(JSON.parse(rows[0]!.payload)).toEqual(['{"n":0}', '{"n":1}', '{"n":2}']);
    expect(JSON.parse(rows[0]!.messageId!)).toEqual(['b.d1.0', 'b.d1.1', 'b.d1.2']);
  });

  it('leaves a lone message as a row of its own, as before', () => {
    expect(groupOutboxItems([item('d1', 0)])).toEqual([item('d1', 0)]);
  });

  it("starts a device's next row at a change of topic or a message without an id, so that its messages keep their order", () => {
    const rows = groupOutboxItems([
      item('d1', 0),
      item('d1', 1, { topic: 'other' }),
      item('d1', 2),
      item('d1', 3, { messageId: null }),
      item('d1', 4),
      item('d1', 5),
    ]);
    expect(rows.map((r) => [r.topic, r.messages ?? 1, r.messageId])).toEqual([
      [null, 1, 'b.d1.0'],
      ['other', 1, 'b.d1.1'],
      [null, 1, 'b.d1.2'],
      [null, 1, null],
      [null, 2, JSON.stringify(['b.d1.4', 'b.d1.5'])],
    ]);
  });

  it('keeps apart what goes to different servers or rules', () => {
    const rows = groupOutboxItems([item('d1', 0), item('d1', 1, { serverId: 's2' }), item('d1', 2, { ruleId: 'r2' }), item('d1', 3)]);
    expect(rows.map((r) => [r.serverId, r.ruleId, r.messages ?? 1])).toEqual([
      ['s1', 'chain:root:f', 2],
      ['s2', 'chain:root:f', 1],
      ['s1', 'r2', 1],
    ]);
  });
});
