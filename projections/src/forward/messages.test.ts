import { describe, expect, it } from 'vitest';
import { renderPayload, renderTopic, type ForwardMessage } from './messages.ts';

const reading: ForwardMessage = {
  deviceId: 'd-1',
  productId: 'p-1',
  type: 'telemetry',
  ts: new Date('2026-05-03T14:02:00Z'),
  values: { temperature: 21.5, mode: 'auto' },
};

describe('a forwarded message', () => {
  it('is the message as JSON when the rule has no template', () => {
    expect(JSON.parse(renderPayload(null, reading))).toEqual({
      deviceId: 'd-1',
      productId: 'p-1',
      type: 'telemetry',
      ts: '2026-05-03T14:02:00.000Z',
      values: { temperature: 21.5, mode: 'auto' },
    });
  });

  it('fills a template: values as JSON, the others as text that keeps a JSON string whole', () => {
    const template = '{"sn":"{{deviceId}}","at":"{{ts}}","data":{{values}},"unknown":"{{nope}}"}';
    expect(JSON.parse(renderPayload(template, { ...reading, deviceId: 'quote"d' }))).toEqual({
      sn: 'quote"d',
      at: '2026-05-03T14:02:00.000Z',
      data: { temperature: 21.5, mode: 'auto' },
      unknown: '{{nope}}',
    });
    expect(renderPayload('{{toString}}-{{}}', reading)).toBe('{{toString}}-{{}}');
  });

  it('carries an event with its identifier and payload', () => {
    const event: ForwardMessage = { ...reading, type: 'event', values: undefined, identifier: 'overheat', payload: { level: 2 } };
    expect(JSON.parse(renderPayload(null, event))).toMatchObject({ type: 'event', identifier: 'overheat', payload: { level: 2 } });
    expect(renderPayload('{{identifier}}:{{payload}}', event)).toBe('overheat:{"level":2}');
  });

  it('goes to the default topic, or to the rule’s with its holes filled and no wildcard', () => {
    expect(renderTopic(null, reading)).toBe('forward/p-1/d-1/telemetry');
    expect(renderTopic('site/{{deviceId}}/up', { ...reading, deviceId: 'a+b#' })).toBe('site/a_b_/up');
  });
});
