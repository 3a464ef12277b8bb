import { z } from 'zod';

/**
 * What a device publishes on `devices/{sn}/ota/{taskId}/progress` (README "MQTT topics"): a stage with its percent,
 * done with the version it now runs, or failed with a reason.
 */
export const otaProgressMessage = z.discriminatedUnion('status', [
  z.object({ status: z.enum(['downloading', 'verifying', 'installing']), percent: z.number().int().min(0).max(100).optional() }),
  z.object({ status: z.literal('done'), version: z.string().trim().min(1).max(32).optional() }),
  z.object({ status: z.literal('failed'), reason: z.string().trim().min(1).max(256).default('failed') }),
]);
export type OtaProgressMessage = z.infer<typeof otaProgressMessage>;

/** ThingsBoard's firmware states (`fw_state` telemetry of its OTA client), in the order a device goes through them. */
export const thingsboardFwStates = ['DOWNLOADING', 'DOWNLOADED', 'VERIFIED', 'UPDATING', 'UPDATED', 'FAILED'] as const;
export const thingsboardFwTelemetry = z.object({
  fw_state: z.enum(thingsboardFwStates),
  current_fw_version: z.string().max(32).optional(),
  fw_error: z.string().max(256).optional(),
});

/** A device's report, as the rollout's device decider takes it. */
export type OtaReport =
  | { stage: 'downloading' | 'verifying' | 'installing'; percent: number | null }
  | { done: true; version: string | null }
  | { failed: string };

export function reportOfProgress(message: OtaProgressMessage): OtaReport {
  if (message.status === 'done') return { done: true, version: message.version ?? null };
  if (message.status === 'failed') return { failed: message.reason };
  return { stage: message.status, percent: message.percent ?? null };
}

/** ThingsBoard's `fw_state` onto the rollout's progress: downloaded is the download at 100 %, verified the check passed. */
export function reportOfFwState(t: z.infer<typeof thingsboardFwTelemetry>): OtaReport {
  switch (t.fw_state) {
    case 'DOWNLOADING':
      return { stage: 'downloading', percent: null };
    case 'DOWNLOADED':
      return { stage: 'downloading', percent: 100 };
    case 'VERIFIED':
      return { stage: 'verifying', percent: 100 };
    case 'UPDATING':
      return { stage: 'installing', percent: null };
    case 'UPDATED':
      return { done: true, version: t.current_fw_version ?? null };
    case 'FAILED':
      return { failed: t.fw_error ?? 'FAILED' };
  }
}

/** The service a device receives a rollout's offer as (`devices/{sn}/command/ota-{taskId}`, `identifier: "ota"`). */
export const OTA_OFFER_SERVICE = 'ota';
/** The offer's parameters. */
export interface OtaOffer {
  taskId: string;
  fileId: string;
  name: string;
  fileType: string;
  version: string | null;
  size: number;
  sha256: string;
  /** Where the device downloads the file over HTTP (Range resumes a cut download); null when this platform offers MQTT chunks only. */
  url: string | null;
  /** When the URL stops working (ISO 8601): a device offered again gets a new one. */
  urlExpiresAt: string | null;
}

/** The offer as ThingsBoard's OTA client takes it: the `fw_*` shared attributes (it then asks for the file in chunks). */
export const thingsboardFwAttributes = (offer: Partial<Record<keyof OtaOffer, unknown>>) => ({
  fw_title: String(offer.name ?? ''),
  fw_version: String(offer.version ?? ''),
  fw_size: Number(offer.size ?? 0),
  fw_checksum: String(offer.sha256 ?? ''),
  fw_checksum_algorithm: 'SHA256',
});
