import { createRequire } from 'node:module';
import { expect, it } from 'vitest';
import './quiet-debug.ts';

// What mqtt-packet gets when it requires `debug` (it requires it once, at load, for each of its namespaces).
const debugOfMqttPacket = () => createRequire(createRequire(import.meta.url).resolve('mqtt-packet'))('debug') as (ns: string) => unknown;

it('gives mqtt-packet a logger that does nothing for a namespace DEBUG leaves off, and the real one for a namespace it names', () => {
  const createDebug = debugOfMqttPacket() as ((ns: string) => { enabled: boolean }) & { enable(ns: string): void; disable(): string };
  const off = createDebug('mqtt-packet:parser');
  // The real logger is a `function debug(...args)` that looks at `enabled` on every call; the quiet one is an empty arrow.
  expect(off.enabled).toBe(false);
  expect(String(off)).not.toContain('args');
  const before = createDebug.disable();
  try {
    createDebug.enable('quiet-debug-test:*');
    const on = createDebug('quiet-debug-test:named');
    expect(on.enabled).toBe(true);
    expect(String(on)).toContain('args');
  } finally {
    createDebug.enable(before);
  }
});
