import { mkdir, writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';
import path from 'node:path';

/**
 * BENCH_CPU_PROF=<dir>: a V8 CPU profile of this process (platform and generator alike) between start and the returned
 * stop, written as `<dir>/<name>.cpuprofile`; without it, nothing.
 */
export async function cpuProfile(name: string): Promise<() => Promise<void>> {
  const dir = process.env.BENCH_CPU_PROF;
  if (!dir) return async () => {};
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
  return async () => {
    const { profile } = await session.post('Profiler.stop');
    await mkdir(dir, { recursive: true });
    await writeFile(path.join(dir, `${name}.cpuprofile`), JSON.stringify(profile));
    session.disconnect();
  };
}

/**
 * BENCH_HEAP_PROF=<dir>: where this process allocated between start and the returned stop (V8's sampling heap profiler,
 * a sample every 32 KB, objects the young and the old generation's collections freed included), written as
 * `<dir>/<name>.heapprofile` (Chrome's DevTools opens it); without it, nothing. The allocation rate drives the
 * collector's cost: what a report allocates and how long it lives.
 */
export async function allocationProfile(name: string): Promise<() => Promise<void>> {
  const dir = process.env.BENCH_HEAP_PROF;
  if (!dir) return async () => {};
  const session = new Session();
  session.connect();
  await session.post('HeapProfiler.enable');
  await session.post('HeapProfiler.startSampling', {
    samplingInterval: 32_768,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: true,
  });
  return async () => {
    const { profile } = await session.post('HeapProfiler.stopSampling');
    await mkdir(dir, { recursive: true });
    await writeFile(path.join(dir, `${name}.heapprofile`), JSON.stringify(profile));
    session.disconnect();
  };
}
