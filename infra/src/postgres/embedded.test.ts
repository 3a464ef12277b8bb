import { describe, expect, it } from 'vitest';
import { socketDirOf } from './embedded.ts';

describe('the embedded PostgreSQL socket', () => {
  it('goes in the data directory when its path fits the kernel and needs no quoting, else nowhere (TCP alone)', () => {
    expect(socketDirOf('/tmp/dc-pg-abc/pg', 54329)).toBe('/tmp/dc-pg-abc/pg');
    // `/.s.PGSQL.54329` is 15 bytes: a 92-byte directory fits 107, a 93-byte one does not.
    const fits = `/${'d'.repeat(91)}`;
    expect(socketDirOf(fits, 54329)).toBe(fits);
    expect(socketDirOf(`${fits}x`, 54329)).toBeNull();
    expect(socketDirOf('/tmp/my data/pg', 54329)).toBeNull();
    expect(socketDirOf('/tmp/a,b/pg', 54329)).toBeNull();
  });
});
