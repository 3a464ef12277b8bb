import { collectDefaultMetrics, Counter, Histogram, Registry } from 'prom-client';

/** The platform's Prometheus registry, served at /metrics. */
export function createMetrics() {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const projectionLag = new Histogram({
    name: 'projection_lag_seconds',
    help: 'Time from an event being appended to its projection committing it',
    labelNames: ['projection'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [registry],
  });
  const projectionEvents = new Counter({
    name: 'projection_events_applied_total',
    help: 'Events applied to read models',
    labelNames: ['projection'],
    registers: [registry],
  });
  return {
    registry,
    observeProjection(projection: string, lagMs: number) {
      projectionLag.observe({ projection }, lagMs / 1000);
      projectionEvents.inc({ projection });
    },
  };
}
