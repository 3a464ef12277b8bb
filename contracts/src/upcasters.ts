/** Turns the data of an event of schema version `n` into version `n + 1`; pure, it must not change its input. */
export type Upcaster = (data: Record<string, unknown>) => Record<string, unknown>;

/** Per event type, the upcasters keyed by the version each one reads (1 upgrades v1 to v2, ...). */
export type UpcasterRegistry = Readonly<Record<string, Readonly<Record<number, Upcaster>>>>;

/** A data set published before sharing existed was the publishing tenant's own (issue 20, spec §6). */
const marketDatasetV1: Upcaster = (data) => ({ ...data, sharing: 'internal', sharedWith: [] });

/** A screen shared before links recorded the sharer's station was shared for the whole tenant, as it was shown then. */
const screenSharedV1: Upcaster = (data) => ({ ...data, stationId: null });

/**
 * The platform's upcasters: when an event's payload changes shape, its schema version goes up and the
 * step from the old shape is registered here; stored events are never rewritten (ARCHITECTURE.md
 * "Event store").
 */
export const upcasters: UpcasterRegistry = {
  MarketDatasetPublished: { 1: marketDatasetV1 },
  MarketDatasetUpdated: { 1: marketDatasetV1 },
  ScreenShared: { 1: screenSharedV1 },
};

/** The schema version an event of this type is written at today: one past its last upcaster. */
export const schemaVersionOf = (type: string): number => Object.keys(upcasters[type] ?? {}).length + 1;
