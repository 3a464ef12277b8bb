import { describe, expect, it } from 'vitest';
import { toCsv } from './exportRows.ts';

describe('toCsv', () => {
  it('escapes text a spreadsheet would evaluate and leaves numbers alone, as the server exports do', () => {
    const rows = [
      { name: '=HYPERLINK("http://evil.example")', value: -40 },
      { name: '-3+4', value: '-40' },
    ];
    const csv = toCsv(rows, [
      { header: 'name', value: (r) => r.name },
      { header: 'value', value: (r) => r.value },
    ]);
    expect(csv.replace(/^\uFEFF/, '').split('\r\n')).toEqual(['name,value', `"'=HYPERLINK(""http://evil.example"")",-40`, "'-3+4,-40"]);
  });
});
