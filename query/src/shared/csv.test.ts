import { describe, expect, it } from 'vitest';
import { csvAnswer, csvCell, csvStream } from './csv.ts';

const text = async (chunks: AsyncIterable<string>) => {
  let out = '';
  for await (const chunk of chunks) out += chunk;
  return out;
};
async function* rowsOf<T>(rows: T[]) {
  yield* rows;
}

describe('the CSV writer', () => {
  it('leaves numbers alone, negative ones and their text included', () => {
    expect(['-40', '-4.5', '+5', '-1e-7', '.5', '0', '-0.001'].map(csvCell)).toEqual(['-40', '-4.5', '+5', '-1e-7', '.5', '0', '-0.001']);
    expect([-40, 42, null].map(csvCell)).toEqual([-40, 42, null]);
  });

  it('escapes text a spreadsheet would evaluate: a formula character first, or a tab or carriage return before one', () => {
    const formulas = ['=1+2', '+1+2', '-3+4', '@SUM(1)', '-40 C', "-2+3+cmd|' /C calc'!A0", '\t=1', '\r=1', '-', '+'];
    expect(formulas.map(csvCell)).toEqual(formulas.map((f) => `'${f}`));
    expect(['plain', '40 °C', 'a=b', ''].map(csvCell)).toEqual(['plain', '40 °C', 'a=b', '']);
  });

  it('writes the same cells whole and streamed: a byte order mark, a header, quoted where a cell holds a comma, quote or line break', async () => {
    const rows = [
      { time: '2026-01-01T00:00:00.000Z', value: '-40', display: '-40 °C', note: 'a, "b"\nc' },
      { time: '2026-01-01T00:01:00.000Z', value: -39.5, display: '=HYPERLINK("x")', note: null },
    ];
    const columns = ['time', 'value', 'display', 'note'];
    const expected = [
      '\uFEFFtime,value,display,note',
      '2026-01-01T00:00:00.000Z,-40,\'-40 °C,"a, ""b""\nc"',
      '2026-01-01T00:01:00.000Z,-39.5,"\'=HYPERLINK(""x"")",',
      '',
    ].join('\n');
    expect(csvAnswer('x.csv', columns, rows).body).toBe(expected);
    expect(await text(csvStream(columns, rowsOf(rows.map((r) => columns.map((c) => r[c as keyof typeof r])))))).toBe(expected);
  });
});
