import { createHash, randomBytes } from 'node:crypto';

/**
 * A device secret: 256 random bits. Stored as its SHA-256 (ARCHITECTURE.md "API"): a random secret needs no
 * slow hash, and the broker finds a device by the hash of the token it presents.
 */
export function newDeviceSecret(): { secret: string; hash: string } {
  const secret = randomBytes(32).toString('base64url');
  return { secret, hash: hashDeviceSecret(secret) };
}
/** `count` device secrets from one draw of random bytes (a bulk import's batch): each as `newDeviceSecret` makes one. */
export function newDeviceSecrets(count: number): Array<{ secret: string; hash: string }> {
  const bytes = randomBytes(32 * count);
  return Array.from({ length: count }, (_, i) => {
    const secret = bytes.subarray(32 * i, 32 * (i + 1)).toString('base64url');
    return { secret, hash: hashDeviceSecret(secret) };
  });
}
export const hashDeviceSecret = (secret: string) => createHash('sha256').update(secret).digest('hex');
