/** What a signed download link lets its holder fetch: the file of one rollout, for one device of it. */
export interface DownloadGrant {
  tenantId: string;
  taskId: string;
  deviceId: string;
  /** The device's SN: a link is refused when another device presents it. */
  sn: string;
}

/**
 * Short-lived signed links a device fetches a rollout's file at over HTTP (with Range, so a cut download resumes).
 * The signature is the platform's (a secret every API process shares): no login, no device secret in the URL.
 */
export interface DownloadLinks {
  /** The URL the device fetches at, and when it stops working (ISO 8601). */
  issue(grant: DownloadGrant): { url: string; expiresAt: string };
  /** The grant a token carries; 'expired' past its time; null when it was altered or is not the platform's. */
  verify(token: string): DownloadGrant | 'expired' | null;
}
