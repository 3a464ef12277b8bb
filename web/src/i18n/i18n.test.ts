import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { en } from './en.ts';
import { zh } from './zh.ts';
import { en as fleetEn, zh as fleetZh } from '../fleet/i18n.ts';
import { en as alarmEn, zh as alarmZh } from '../alarm/i18n.ts';
import { en as forwardEn, zh as forwardZh } from '../forward/strings.ts';
import { en as statEn, zh as statZh } from '../analysis/i18n.ts';
import { en as fileEn, zh as fileZh } from '../file/strings.ts';
import { en as ptEn, zh as ptZh } from '../producttest/strings.ts';
import { en as videoEn, zh as videoZh } from '../video/strings.ts';
import { en as reportEn, zh as reportZh } from '../report/strings.ts';
import { en as sceneEn, zh as sceneZh } from '../scene/strings.ts';
import { en as marketEn, zh as marketZh } from '../market/strings.ts';
import { en as otaEn, zh as otaZh } from '../ota/strings.ts';
import { en as faultEn, zh as faultZh } from '../analysis/faultStrings.ts';
import { en as opsEn, zh as opsZh } from '../system/ops-strings.ts';
import { en as fieldEn, zh as fieldZh } from '../field/strings.ts';
import { en as mqttEn, zh as mqttZh } from '../system/mqtt-strings.ts';
import { en as operationEn, zh as operationZh } from '../operation/strings.ts';
import { en as screenEn, zh as screenZh } from '../screen/strings.ts';
import { en as powerEn, zh as powerZh } from '../power/strings.ts';

/** Every bundle of strings, as [en, zh]: the app's own, and those screens bring themselves (web/src/fleet/i18n.ts). */
const bundles: Array<[object, object]> = [
  [en, zh],
  [fleetEn, fleetZh],
  [alarmEn, alarmZh],
  [forwardEn, forwardZh],
  [statEn, statZh],
  [fileEn, fileZh],
  [ptEn, ptZh],
  [videoEn, videoZh],
  [reportEn, reportZh],
  [sceneEn, sceneZh],
  [marketEn, marketZh],
  [otaEn, otaZh],
  [faultEn, faultZh],
  [opsEn, opsZh],
  [fieldEn, fieldZh],
  [mqttEn, mqttZh],
  [operationEn, operationZh],
  [screenEn, screenZh],
  [powerEn, powerZh],
];

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
    for (const [enBundle, zhBundle] of bundles) expect(keys(enBundle).sort()).toEqual(keys(zhBundle).sort());
  });
  it('every literal key the code asks for exists', () => {
    const known = new Set(bundles.flatMap(([, zhBundle]) => keys(zhBundle)));
    const src = path.resolve(import.meta.dirname, '..');
    const used = files(src).flatMap((f) => [...readFileSync(f, 'utf8').matchAll(/\bt\('([a-zA-Z]+\.[\w.]+)'/g)].map((m) => m[1]!));
    expect(used.filter((k) => !known.has(k))).toEqual([]);
  });
});
