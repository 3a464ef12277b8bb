import { createHash, randomBytes } from 'node:crypto';

/**
 * A device secret: 256 random bits. Stored as its SHA-256 (ARCHITECTURE.md "API"): a random secret needs no
 * slow hash, and the broker finds a device by the hash of the token it presents.
 */
export function newDeviceSecret(): { secret: string; hash: string } {
  const secret = randomBytes(32).toString('base64url');
  return { secret, hash: hashDeviceSecret(secret) };
}
export const hashDeviceSecret = (secret: string) => createHash('sha256').update(secret).digest('hex');
