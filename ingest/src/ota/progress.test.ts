import { describe, expect, it, vi } from 'vitest';
import type { OtaReport } from '@iot/contracts';
import type { Dispatch } from '@iot/contracts/ports/dispatch.ts';
import type { DeviceRef } from '../registry.ts';
import { createOtaReportReader, createOtaReporter } from './progress.ts';

const deviceOf = (deviceId: string): DeviceRef => ({
  deviceId,
  tenantId: 't-1',
  sn: `SN-${deviceId}`,
  name: deviceId,
  productId: 'p-1',
  modelVersion: 1,
  nodeType: 'direct',
  gatewayId: null,
  groupId: null,
});
const downloading = (percent: number | null): OtaReport => ({ stage: 'downloading', percent });

/** A dispatch that holds every command until `release` is called; `seen` lists the reports in the order dispatched. */
function heldDispatch() {
  const seen: Array<{ deviceId: string; report: OtaReport }> = [];
  const held: Array<{ resolve: () => void; reject: (err: unknown) => void }> = [];
  const dispatch = ((command: { deviceId: string; report: OtaReport }) =>
    new Promise<{ position: null }>((resolve, reject) => {
      seen.push({ deviceId: command.deviceId, report: command.report });
      held.push({ resolve: () => resolve({ position: null }), reject });
    })) as unknown as Dispatch;
  /** Settles the oldest held command, then lets the reporter go on. */
  const release = async (fail = false) => {
    const next = held.shift()!;
    if (fail) next.reject(new Error('store down'));
    else next.resolve();
    await new Promise((resolve) => setImmediate(resolve));
  };
  return { dispatch, seen, release, held };
}

describe('createOtaReporter', () => {
  it('coalesces the waiting reports of a device that only move the percent, and keeps every change of stage', async () => {
    const { dispatch, seen, release } = heldDispatch();
    const report = createOtaReporter(dispatch, () => {});
    const d = deviceOf('d-1');
    const settled: string[] = [];
    const send = (name: string, r: OtaReport) => void report(d, 'task', r).then(() => settled.push(name));
    send('d10', downloading(10));
    send('d20', downloading(20));
    send('d30', downloading(30));
    send('v', { stage: 'verifying', percent: null });
    send('i40', { stage: 'installing', percent: 40 });
    send('i50', { stage: 'installing', percent: 50 });
    send('done', { done: true, version: '2.0' });
    await new Promise((resolve) => setImmediate(resolve));
    expect(seen.map((s) => s.report)).toEqual([downloading(10)]);
    for (let i = 0; i < 5; i++) await release();
    expect(seen.map((s) => s.report)).toEqual([
      downloading(10),
      downloading(30),
      { stage: 'verifying', percent: null },
      { stage: 'installing', percent: 50 },
      { done: true, version: '2.0' },
    ]);
    expect(settled).toEqual(['d10', 'd20', 'd30', 'v', 'i40', 'i50', 'done']);
  });

  it('never coalesces a report without a percent, nor another device’s or another task’s', async () => {
    const { dispatch, seen, release } = heldDispatch();
    const report = createOtaReporter(dispatch, () => {});
    void report(deviceOf('a'), 'task', downloading(10));
    void report(deviceOf('b'), 'task', downloading(10));
    void report(deviceOf('a'), 'task', downloading(null));
    void report(deviceOf('a'), 'task', downloading(50));
    void report(deviceOf('a'), 'other', downloading(60));
    await new Promise((resolve) => setImmediate(resolve));
    expect(seen.map((s) => s.deviceId)).toEqual(['a', 'b']);
    for (let i = 0; i < 5; i++) await release();
    expect(seen.map((s) => [s.deviceId, s.report])).toEqual([
      ['a', downloading(10)],
      ['b', downloading(10)],
      ['a', downloading(null)],
      ['a', downloading(50)],
      ['a', downloading(60)],
    ]);
  });

  it('rejects every message a report answers for when it is not recorded, and goes on with the next', async () => {
    const { dispatch, seen, release } = heldDispatch();
    const errors: unknown[] = [];
    const report = createOtaReporter(dispatch, (err) => errors.push(err));
    const d = deviceOf('d-1');
    const outcomes = [downloading(10), downloading(20), downloading(30)].map((r) =>
      report(d, 'task', r).then(
        () => 'recorded',
        (err: Error) => err.message,
      ),
    );
    await release(true);
    await release(true);
    expect(await Promise.all(outcomes)).toEqual(['store down', 'store down', 'store down']);
    expect(errors).toHaveLength(2);
    const after = report(d, 'task', downloading(40));
    await new Promise((resolve) => setImmediate(resolve));
    await release();
    await expect(after).resolves.toBeUndefined();
    expect(seen.map((s) => s.report)).toEqual([downloading(10), downloading(30), downloading(40)]);
  });
});

describe('OTA report payloads', () => {
  it('parses and checks a payload text once: the same bytes again give the kept report, not a second parse', () => {
    const read = createOtaReportReader();
    const parse = vi.spyOn(JSON, 'parse');
    try {
      const first = read('{"status":"downloading","percent":40}');
      expect(first).toEqual({ stage: 'downloading', percent: 40 });
      expect(read('{"status":"downloading","percent":40}')).toBe(first);
      expect(read('{"status":"downloading","percent":41}')).toEqual({ stage: 'downloading', percent: 41 });
      expect(parse).toHaveBeenCalledTimes(2);
    } finally {
      parse.mockRestore();
    }
  });

  it('refuses what is not a report, and tells text that is not JSON apart', () => {
    const read = createOtaReportReader();
    expect(read('{"status":"downloading","percent":140}')).toBeNull();
    expect(read('{"status":"downloading","percent":140}')).toBeNull();
    expect(read('{"status":')).toBe(false);
    expect(read('{"status":"done"}')).toEqual({ done: true, version: null });
  });
});
