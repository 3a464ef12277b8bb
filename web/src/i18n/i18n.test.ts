import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { en } from './en.ts';
import { zh } from './zh.ts';
import { en as fleetEn, zh as fleetZh } from '../fleet/i18n.ts';
import { en as alarmEn, zh as alarmZh } from '../alarm/i18n.ts';
import { en as forwardEn, zh as forwardZh } from '../forward/strings.ts';
import { en as statEn, zh as statZh } from '../analysis/i18n.ts';
import { en as videoEn, zh as videoZh } from '../video/strings.ts';
import { en as opsEn, zh as opsZh } from '../system/ops-strings.ts';

const keys = (o: object, prefix = ''): string[] =>
  Object.entries(o).flatMap(([k, v]) => (typeof v === 'string' ? [prefix + k] : keys(v as object, `${prefix}${k}.`)));
const files = (dir: string): string[] =>
  readdirSync(dir).flatMap((f) =>
    statSync(path.join(dir, f)).isDirectory()
      ? files(path.join(dir, f))
      : /\.tsx?$/.test(f) && !f.endsWith('.test.ts')
        ? [path.join(dir, f)]
        : [],
  );

describe('translations', () => {
  it('zh and en have the same keys', () => {
    expect(keys(en).sort()).toEqual(keys(zh).sort());
    // Screens that bring their own strings (web/src/fleet/i18n.ts) keep both languages too.
    expect(keys(fleetEn).sort()).toEqual(keys(fleetZh).sort());
    expect(keys(alarmEn).sort()).toEqual(keys(alarmZh).sort());
    expect(keys(forwardEn).sort()).toEqual(keys(forwardZh).sort());
    expect(keys(statEn).sort()).toEqual(keys(statZh).sort());
    expect(keys(videoEn).sort()).toEqual(keys(videoZh).sort());
    expect(keys(opsEn).sort()).toEqual(keys(opsZh).sort());
  });
  it('every literal key the code asks for exists', () => {
    const known = new Set([
      ...keys(zh),
      ...keys(fleetZh),
      ...keys(alarmZh),
      ...keys(forwardZh),
      ...keys(statZh),
      ...keys(videoZh),
      ...keys(opsZh),
    ]);
    const src = path.resolve(import.meta.dirname, '..');
    const used = files(src).flatMap((f) => [...readFileSync(f, 'utf8').matchAll(/\bt\('([a-zA-Z]+\.[\w.]+)'/g)].map((m) => m[1]!));
    expect(used.filter((k) => !known.has(k))).toEqual([]);
  });
});
