import { createHmac, createSecretKey, randomBytes, timingSafeEqual } from 'node:crypto';
import { routes } from '@iot/contracts';
import { urlOf } from '@iot/contracts/http/route.ts';
import type { DownloadGrant, DownloadLinks } from '@iot/contracts/ports/download-links.ts';

interface Signed extends DownloadGrant {
  /** Expiry, Unix seconds. */
  exp: number;
}

const b64 = (bytes: Buffer) => bytes.toString('base64url');

/**
 * Download links signed with HMAC-SHA256: `<claims>.<signature>`, both base64url. Every API process must share
 * the secret (OTA_URL_SECRET) for a link made by one to be served by another; `base` is where devices reach the API.
 */
export function createDownloadLinks(options: {
  secret?: string | undefined;
  ttlSec: number;
  base: () => string;
  now?: () => number;
}): DownloadLinks {
  // A key object made once: every range a device fetches verifies its link, and a raw key is prepared again each time.
  const key = createSecretKey(options.secret ? Buffer.from(options.secret) : randomBytes(32));
  const now = options.now ?? Date.now;
  const sign = (claims: string) => createHmac('sha256', key).update(claims).digest();
  return {
    issue(grant) {
      const exp = Math.floor(now() / 1000) + options.ttlSec;
      const claims = b64(Buffer.from(JSON.stringify({ ...grant, exp } satisfies Signed)));
      const token = `${claims}.${b64(sign(claims))}`;
      return {
        url: `${options.base()}${urlOf(routes['otaTask.firmware'], { sn: grant.sn, token })}`,
        expiresAt: new Date(exp * 1000).toISOString(),
      };
    },
    verify(token) {
      const [claims, signature, ...rest] = token.split('.');
      if (!claims || !signature || rest.length) return null;
      const given = Buffer.from(signature, 'base64url');
      const expected = sign(claims);
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
      let signed: Signed;
      try {
        signed = JSON.parse(Buffer.from(claims, 'base64url').toString('utf8')) as Signed;
      } catch {
        return null;
      }
      if (signed.exp * 1000 <= now()) return 'expired';
      return { tenantId: signed.tenantId, taskId: signed.taskId, deviceId: signed.deviceId, sn: signed.sn };
    },
  };
}
