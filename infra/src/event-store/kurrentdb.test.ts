import { describe, expect, it } from 'vitest';
import { ANY, EVENT_TYPE, NO_STREAM, STREAM_NAME } from '@kurrent/kurrentdb-client';
import {
  allFilter,
  comparePositions,
  decodePosition,
  encodePosition,
  isWanted,
  toStreamState,
  versionOfRevision,
  versionOfStreamState,
} from './kurrentdb.ts';

describe('expected version to Kurrent stream state', () => {
  it('maps any to ANY and 0 (no stream yet) to NO_STREAM', () => {
    expect(toStreamState('any')).toBe(ANY);
    expect(toStreamState(0)).toBe(NO_STREAM);
  });

  it('maps a 1-based version to the 0-based revision of the stream last event', () => {
    expect(toStreamState(1)).toBe(0n);
    expect(toStreamState(42)).toBe(41n);
  });

  it('rejects versions that are not integers >= 0', () => {
    expect(() => toStreamState(-1)).toThrow(RangeError);
    expect(() => toStreamState(1.5)).toThrow(RangeError);
  });

  it('maps revisions and a conflict actual state back to 1-based versions', () => {
    expect(versionOfRevision(0n)).toBe(1);
    expect(versionOfRevision(9n)).toBe(10);
    expect(versionOfStreamState(NO_STREAM)).toBe(0);
    expect(versionOfStreamState(4n)).toBe(5);
    expect(versionOfStreamState(undefined)).toBeNull();
    expect(versionOfStreamState(-5n)).toBeNull();
  });
});

describe('$all position as an opaque checkpoint', () => {
  it('round-trips commit and prepare, beyond 2^53', () => {
    const position = { commit: 9_007_199_254_740_993n, prepare: 9_007_199_254_740_995n };
    const checkpoint = encodePosition(position);
    expect(checkpoint).toBe('9007199254740993:9007199254740995');
    expect(decodePosition(checkpoint)).toEqual(position);
  });

  it('rejects checkpoints of another adapter or garbage', () => {
    expect(() => decodePosition('')).toThrow(TypeError);
    expect(() => decodePosition('12')).toThrow(TypeError);
    expect(() => decodePosition('1:-2')).toThrow(TypeError);
    expect(() => decodePosition('a:b')).toThrow(TypeError);
  });

  it('orders positions by commit, then prepare', () => {
    expect(comparePositions({ commit: 1n, prepare: 9n }, { commit: 2n, prepare: 0n })).toBe(-1);
    expect(comparePositions({ commit: 2n, prepare: 3n }, { commit: 2n, prepare: 1n })).toBe(1);
    expect(comparePositions({ commit: 2n, prepare: 2n }, { commit: 2n, prepare: 2n })).toBe(0);
  });
});

describe('$all filter', () => {
  it('excludes system event types when no category is asked for', () => {
    const filter = allFilter();
    expect(filter.filterOn).toBe(EVENT_TYPE);
    expect('regex' in filter && filter.regex).toBe('^[^$].*');
  });

  it('keeps only the streams of the asked categories', () => {
    const filter = allFilter(['device', 'alarm']);
    expect(filter.filterOn).toBe(STREAM_NAME);
    expect('prefixes' in filter && filter.prefixes).toEqual(['device-', 'alarm-']);
  });

  it('checks the filter again on the client: no system events, exact categories', () => {
    expect(isWanted('device-t1.d1', 'DeviceRegistered')).toBe(true);
    expect(isWanted('$$device-t1.d1', '$metadata')).toBe(false);
    expect(isWanted('device-t1.d1', '$streamDeleted')).toBe(false);
    expect(isWanted('$ce-device', 'DeviceRegistered')).toBe(false);
    expect(isWanted('device-t1.d1', 'DeviceRegistered', ['device'])).toBe(true);
    expect(isWanted('devices-t1.d1', 'DeviceRegistered', ['device'])).toBe(false);
    expect(isWanted('device-t1.d1', 'DeviceRegistered', [])).toBe(true);
  });
});
