import type { TelemetryRow } from './timeseries.ts';

/**
 * Exactly-once on the MQTT path without Kafka (issue 23): a small write-ahead log beside the time-series store.
 * Each group-committed batch is written (and flushed to disk) with the keys of the messages it carries before it
 * is inserted with a deduplication token of its own, and marked inserted after. At start, batches journaled but
 * not marked are inserted again with the same token (the store drops a repeat), so every journaled message is
 * stored once; a message the device sends again (MQTT DUP) whose key the journal holds is acknowledged again
 * without being stored a second time.
 */
export interface TelemetryJournal {
  /**
   * Whether a message is one the journal holds already (stored, or stored at start), so its repeat stores nothing:
   * a resend that says so (`dup`, MQTT's DUP flag) is looked for among every message journaled lately; one that
   * does not (clients that resend without the flag, as MQTT.js does) only among the last run's final seconds
   * before it stopped, and matches once.
   */
  holds(key: string, dup: boolean): boolean;
  /**
   * Journals the batch, inserts it through `insert` with the batch's token, then marks it inserted; answers the token.
   * `sizes` (rows per message, in order) is kept for the rule chains, which run the batch message by message.
   */
  write(
    rows: TelemetryRow[],
    keys: readonly string[],
    insert: (rows: TelemetryRow[], dedupToken: string) => Promise<void>,
    sizes?: readonly number[],
  ): Promise<string>;
  /**
   * The rule chains ran every message of the batch `token` (issue 19): the chains' durable position. A batch stored
   * and not marked so is run through them again at the next start (at least once from the stored telemetry on).
   */
  chained(token: string): void;
}
