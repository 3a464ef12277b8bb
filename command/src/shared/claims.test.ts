import { describe, expect, it } from 'vitest';
import type { Sql } from '@iot/contracts/ports/sql.ts';
import { claim, claimExisting, moveClaim, releaseClaims, withClaim } from './claims.ts';

/** The claims table in memory: the statements claims.ts runs, with a primary key on (scope, key). */
function claimsTable() {
  const rows = new Map<string, string>();
  const id = (scope: unknown, key: unknown) => `${String(scope)}\0${String(key)}`;
  const sql: Sql = {
    async query(text: string, params: unknown[] = []) {
      const [a, b, c] = params;
      const result = (found: Record<string, unknown>[], rowCount = found.length) => ({ rows: found as never[], rowCount });
      if (text.startsWith('insert into claims (scope, key, owner) values')) {
        if (rows.has(id(a, b))) return result([], 0);
        rows.set(id(a, b), String(c));
        return result([], 1);
      }
      if (text.startsWith('insert into claims (scope, key, owner) select * from unnest')) {
        (a as string[]).forEach((scope, i) => {
          if (!rows.has(id(scope, (b as string[])[i]))) rows.set(id(scope, (b as string[])[i]), (c as string[])[i]!);
        });
        return result([]);
      }
      if (text.startsWith('select owner from claims')) {
        const owner = rows.get(id(a, b));
        return result(owner === undefined ? [] : [{ owner }]);
      }
      if (text.startsWith('delete from claims where scope = $1 and key = $2 and owner = $3')) {
        if (rows.get(id(a, b)) === c) rows.delete(id(a, b));
        return result([]);
      }
      if (text.startsWith('delete from claims where scope = $1 and owner = $2')) {
        for (const [k, owner] of rows) if (k.startsWith(`${String(a)}\0`) && owner === b && k !== id(a, c)) rows.delete(k);
        return result([]);
      }
      throw new Error(`unexpected statement: ${text}`);
    },
  };
  return { sql, holder: (scope: string, key: string) => rows.get(id(scope, key)) };
}

const failing = async (): Promise<never> => {
  throw new Error('append failed');
};

describe('claims', () => {
  it('gives a key to one owner: taking it again is fine for the holder, refused to anyone else', async () => {
    const { sql, holder } = claimsTable();
    expect(await claim(sql, 'role:t1', 'ops', 'r1', 'ROLE_EXISTS')).toBe(true);
    expect(await claim(sql, 'role:t1', 'ops', 'r1', 'ROLE_EXISTS')).toBe(false);
    await expect(claim(sql, 'role:t1', 'ops', 'r2', 'ROLE_EXISTS')).rejects.toMatchObject({ code: 'ROLE_EXISTS' });
    // Scopes are apart: another tenant may use the name.
    expect(await claim(sql, 'role:t2', 'ops', 'r3', 'ROLE_EXISTS')).toBe(true);
    expect(holder('role:t1', 'ops')).toBe('r1');
  });

  it('releases a key it took when the append fails, and keeps one the owner held before', async () => {
    const { sql, holder } = claimsTable();
    await expect(withClaim(sql, { scope: 's', key: 'k', owner: 'o1' }, 'ROLE_EXISTS', failing)).rejects.toThrow('append failed');
    expect(holder('s', 'k')).toBeUndefined();
    await claim(sql, 's', 'k', 'o1', 'ROLE_EXISTS');
    await expect(withClaim(sql, { scope: 's', key: 'k', owner: 'o1' }, 'ROLE_EXISTS', failing)).rejects.toThrow('append failed');
    expect(holder('s', 'k')).toBe('o1');
  });

  it('appends nothing when the key is taken', async () => {
    const { sql } = claimsTable();
    await claim(sql, 's', 'k', 'o1', 'DICT_CODE_TAKEN');
    let appended = false;
    const refused = withClaim(sql, { scope: 's', key: 'k', owner: 'o2' }, 'DICT_CODE_TAKEN', async () => {
      appended = true;
    });
    await expect(refused).rejects.toMatchObject({ code: 'DICT_CODE_TAKEN' });
    expect(appended).toBe(false);
  });

  it('moves a claim on rename: the new key held and the old one free once appended, the old one kept when the append fails', async () => {
    const { sql, holder } = claimsTable();
    await claim(sql, 's', 'old', 'o1', 'ROLE_EXISTS');
    await expect(moveClaim(sql, { scope: 's', key: 'new', owner: 'o1' }, 'ROLE_EXISTS', failing)).rejects.toThrow();
    expect([holder('s', 'old'), holder('s', 'new')]).toEqual(['o1', undefined]);
    expect(await moveClaim(sql, { scope: 's', key: 'new', owner: 'o1' }, 'ROLE_EXISTS', async () => 'appended')).toBe('appended');
    expect([holder('s', 'old'), holder('s', 'new')]).toEqual([undefined, 'o1']);
  });

  it('releases every key of an owner in a scope on delete, and only those', async () => {
    const { sql, holder } = claimsTable();
    await claim(sql, 's', 'a', 'o1', 'ROLE_EXISTS');
    await claim(sql, 's', 'b', 'o2', 'ROLE_EXISTS');
    await claim(sql, 'other', 'a', 'o1', 'ROLE_EXISTS');
    await releaseClaims(sql, 's', 'o1');
    expect([holder('s', 'a'), holder('s', 'b'), holder('other', 'a')]).toEqual([undefined, 'o2', 'o1']);
  });

  it('claims the keys existing rows use at start, never taking one from its holder', async () => {
    const { sql, holder } = claimsTable();
    await claim(sql, 's', 'a', 'o1', 'ROLE_EXISTS');
    await claimExisting(sql, [
      { scope: 's', key: 'a', owner: 'o9' },
      { scope: 's', key: 'b', owner: 'o2' },
    ]);
    expect([holder('s', 'a'), holder('s', 'b')]).toEqual(['o1', 'o2']);
  });
});
