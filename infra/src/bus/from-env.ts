import { createInProcessBus, type InProcessBusOptions } from './in-process.ts';
import { createKafkaBus, kafkaBrokersFromEnv } from './kafka.ts';
import type { Bus } from './port.ts';

/** Kafka when `KAFKA_BROKERS` is set, else the in-process bus. */
export function createBusFromEnv(env: NodeJS.ProcessEnv = process.env, inProcess: InProcessBusOptions = {}): Bus {
  if (env.KAFKA_BROKERS) return createKafkaBus({ brokers: kafkaBrokersFromEnv(env) });
  return createInProcessBus(inProcess);
}
