import { mkdir, writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';
import path from 'node:path';

/**
 * With the directory `dir` names (an env var's value), runs `start` on an inspector session of this process and returns
 * what writes `<dir>/<file>` from `stop`'s answer; without it, nothing.
 */
async function inspected(
  dir: string | undefined,
  file: string,
  start: (session: Session) => Promise<unknown>,
  stop: (session: Session) => Promise<object>,
): Promise<() => Promise<void>> {
  if (!dir) return async () => {};
  const session = new Session();
  session.connect();
  await start(session);
  return async () => {
    const profile = await stop(session);
    await mkdir(dir, { recursive: true });
    await writeFile(path.join(dir, file), JSON.stringify(profile));
    session.disconnect();
  };
}

/**
 * BENCH_CPU_PROF=<dir>: a V8 CPU profile of this process (platform and generator alike) between start and the returned
 * stop, written as `<dir>/<name>.cpuprofile`; without it, nothing.
 */
export function cpuProfile(name: string): Promise<() => Promise<void>> {
  return inspected(
    process.env.BENCH_CPU_PROF,
    `${name}.cpuprofile`,
    async (session) => {
      await session.post('Profiler.enable');
      await session.post('Profiler.start');
    },
    async (session) => (await session.post('Profiler.stop')).profile,
  );
}

/**
 * BENCH_HEAP_PROF=<dir>: where this process allocated between start and the returned stop (V8's sampling heap profiler,
 * a sample every 32 KB, objects the young and the old generation's collections freed included), written as
 * `<dir>/<name>.heapprofile` (Chrome's DevTools opens it); without it, nothing. The allocation rate drives the
 * collector's cost: what a report allocates and how long it lives.
 */
export function allocationProfile(name: string): Promise<() => Promise<void>> {
  return inspected(
    process.env.BENCH_HEAP_PROF,
    `${name}.heapprofile`,
    async (session) => {
      await session.post('HeapProfiler.enable');
      await session.post('HeapProfiler.startSampling', {
        samplingInterval: 32_768,
        includeObjectsCollectedByMajorGC: true,
        includeObjectsCollectedByMinorGC: true,
      });
    },
    async (session) => (await session.post('HeapProfiler.stopSampling')).profile,
  );
}
