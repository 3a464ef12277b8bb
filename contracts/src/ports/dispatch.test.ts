import { describe, expect, it } from 'vitest';
import type { Dispatch, DispatchedCommand, DispatchMetadata } from './dispatch.ts';

const metadata: DispatchMetadata = {
  tenantId: 't1',
  actor: { kind: 'system', id: 'alarm-reactor' },
  correlationId: 'c1',
  causationId: null,
  idempotencyKey: 'k1',
};

describe('the dispatch port', () => {
  // What this checks is the compile (`tsc` runs over the tests): each `@ts-expect-error` fails it once the line compiles.
  it('takes the commands of its union only, each with the fields of its type', async () => {
    const sent: DispatchedCommand[] = [];
    const dispatch: Dispatch = async (command) => {
      sent.push(command);
      return { position: null };
    };
    await dispatch({ type: 'ClearAlarm', alarmId: 'a1', value: null, at: 'now' }, metadata);
    // @ts-expect-error a misspelt field
    await dispatch({ type: 'SetDevicePresence', deviceId: 'd1', online: false, at: 'now', reasn: 'timeout' }, metadata);
    // @ts-expect-error a field of the command's payload missing
    await dispatch({ type: 'ClearAlarm', alarmId: 'a1', at: 'now' }, metadata);
    // @ts-expect-error an alarm that may not be there
    await dispatch({ type: 'RepeatAlarm', alarmId: null, count: 2, value: 31, at: 'now' }, metadata);
    // @ts-expect-error a command no handler takes
    await dispatch({ type: 'RebootDevice', deviceId: 'd1' }, metadata);
    expect(sent.map((c) => c.type)).toEqual(['ClearAlarm', 'SetDevicePresence', 'ClearAlarm', 'RepeatAlarm', 'RebootDevice']);
  });
});
