import { describe, expect, it } from 'vitest';
import { brokerAddress } from './client.ts';

describe('brokerAddress', () => {
  it('takes the credentials out of the URL, decoded', () => {
    expect(brokerAddress('mqtt://plat%40form:p%23ss%3Aword@broker.local:1883')).toEqual({
      url: 'mqtt://broker.local:1883',
      username: 'plat@form',
      password: 'p#ss:word',
    });
  });

  it('leaves a URL without credentials as it is', () => {
    expect(brokerAddress('mqtts://broker.local:8883')).toEqual({
      url: 'mqtts://broker.local:8883',
      username: undefined,
      password: undefined,
    });
  });
});
