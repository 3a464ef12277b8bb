import { describe, expect, it } from 'vitest';
import { encodePayload } from './codec.ts';

describe('encodePayload', () => {
  it('sends bytes as they are, strings as UTF-8 and objects as JSON', () => {
    expect([...encodePayload(Buffer.from([1, 2]))]).toEqual([1, 2]);
    expect(encodePayload('é').toString('utf8')).toBe('é');
    expect(encodePayload({ on: true }).toString()).toBe('{"on":true}');
  });
});
