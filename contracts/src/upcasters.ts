/** Turns the data of an event of schema version `n` into version `n + 1`; pure, it must not change its input. */
export type Upcaster = (data: Record<string, unknown>) => Record<string, unknown>;

/** Per event type, the upcasters keyed by the version each one reads (1 upgrades v1 to v2, ...). */
export type UpcasterRegistry = Readonly<Record<string, Readonly<Record<number, Upcaster>>>>;

/**
 * The platform's upcasters: when an event's payload changes shape, its schema version goes up and the
 * step from the old shape is registered here; stored events are never rewritten (ARCHITECTURE.md
 * "Event store"). None yet: every event type is still at version 1.
 */
export const upcasters: UpcasterRegistry = {};
