/**
 * How a real-engine suite gets its engine (ARCHITECTURE.md "Tests and CI"): from an env URL if set,
 * else one started locally, else the suite is skipped with the reason. Under CI=true a skip is a failure.
 */
export interface EngineHandle {
  url: string;
  stop(): Promise<void>;
}

export type EngineResult = { ok: true; engine: EngineHandle } | { ok: false; reason: string };

export const inCi = (): boolean => process.env.CI === 'true';

/**
 * Resolves an engine for a suite. `start` starts a local one or throws with why it cannot.
 * Returns the reason instead of an engine when neither works, unless CI=true, where it throws.
 */
export async function resolveEngine(name: string, envVar: string, start: () => Promise<EngineHandle>): Promise<EngineResult> {
  const url = process.env[envVar];
  if (url) return { ok: true, engine: { url, stop: async () => {} } };
  try {
    return { ok: true, engine: await start() };
  } catch (error) {
    const reason = `${name}: ${envVar} is not set and no local ${name} could be started (${(error as Error).message})`;
    if (inCi()) throw new Error(`${reason}; under CI=true a skipped real-engine suite is a failure`, { cause: error });
    return { ok: false, reason };
  }
}
