import { Worker } from 'node:worker_threads';
import type { OutboundErrorClass } from '@iot/contracts/ports/outbound-http.ts';
import type { ForwardDelivery } from '@iot/projections/forward/delivery.ts';

/** What the delivery thread is started with: plain values, since a worker thread shares no objects. */
export interface DeliveryThreadData {
  databaseUrl: string;
  poolSize: number;
  /** OUTBOUND_ALLOW_CIDRS: the guard in the thread allows what the platform's does. */
  allowCidrs: string | undefined;
  backoffMs: number;
  maxAttempts: number;
  pollMs?: number;
}
export type ToDelivery = { type: 'kick' } | { type: 'drain'; id: number } | { type: 'stop' };
export type FromDelivery =
  | { type: 'log'; detail: { serverId: string; deviceId: string; error: OutboundErrorClass; detail: string } }
  | { type: 'error'; message: string; stack: string | undefined }
  | { type: 'drained'; id: number; error: string | null }
  | { type: 'stopped' };

/** The delivery's connections as PostgreSQL lists them (pg_stat_activity): an operator tells them from the process's. */
export const DELIVERY_APPLICATION_NAME = 'forward-delivery';
const named = (databaseUrl: string) => {
  if (!URL.canParse(databaseUrl)) return databaseUrl;
  const url = new URL(databaseUrl);
  url.searchParams.set('application_name', DELIVERY_APPLICATION_NAME);
  return url.toString();
};

/** A thread that does not answer its stop within this is terminated. */
const STOP_MS = 15_000;
/** Wait before a thread that died is started again. */
const RESTART_MS = 1_000;

/**
 * The forwarding outbox's delivery worker (projections/src/forward/delivery.ts) run in a worker thread: the same
 * guarantees (the outbox in PostgreSQL is the only state it shares with the process), the outbound work off the
 * process's event loop. A thread that dies is started again; it ends with the process, so a crash leaves no orphan.
 */
export function startForwardDeliveryThread(
  data: DeliveryThreadData,
  hooks: { log(detail: Extract<FromDelivery, { type: 'log' }>['detail']): void; onError(error: unknown): void },
): ForwardDelivery {
  let worker: Worker;
  let alive = false;
  let stopping = false;
  let restart: NodeJS.Timeout | null = null;
  let nextId = 0;
  const drains = new Map<number, { resolve(): void; reject(error: Error): void }>();
  let stopped: (() => void) | null = null;

  function spawn() {
    // The platform runs TypeScript through tsx: the thread loads its entry the same way.
    worker = new Worker(new URL('./delivery-worker.ts', import.meta.url), {
      workerData: { ...data, databaseUrl: named(data.databaseUrl) },
      execArgv: ['--import', 'tsx'],
    });
    alive = true;
    worker.on('message', (message: FromDelivery) => {
      if (message.type === 'log') hooks.log(message.detail);
      else if (message.type === 'error') hooks.onError(Object.assign(new Error(message.message), { stack: message.stack }));
      else if (message.type === 'drained') {
        const waiting = drains.get(message.id);
        drains.delete(message.id);
        if (message.error === null) waiting?.resolve();
        else waiting?.reject(new Error(message.error));
      } else stopped?.();
    });
    worker.on('error', (error) => hooks.onError(error));
    worker.on('exit', (code) => {
      alive = false;
      for (const waiting of drains.values()) waiting.reject(new Error(`the forwarding delivery thread exited (${code})`));
      drains.clear();
      stopped?.();
      if (stopping) return;
      hooks.onError(new Error(`the forwarding delivery thread exited (${code}): started again`));
      restart = setTimeout(() => {
        restart = null;
        if (!stopping) spawn();
      }, RESTART_MS);
    });
  }
  spawn();
  const send = (message: ToDelivery) => worker.postMessage(message);

  return {
    kick: () => send({ type: 'kick' }),
    drain: () =>
      new Promise<void>((resolve, reject) => {
        if (!alive) return reject(new Error('the forwarding delivery thread is not running'));
        const id = nextId++;
        drains.set(id, { resolve, reject });
        send({ type: 'drain', id });
      }),
    async stop() {
      stopping = true;
      if (restart) clearTimeout(restart);
      if (!alive) return;
      const done = new Promise<void>((resolve) => (stopped = resolve));
      const timer = setTimeout(() => void worker.terminate(), STOP_MS);
      send({ type: 'stop' });
      await done;
      clearTimeout(timer);
      await worker.terminate();
    },
  };
}
