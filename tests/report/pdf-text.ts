import { inflateSync } from 'node:zlib';

/**
 * The text of a PDF as pdfkit writes it (no PDF reader is installed here): every stream inflated, the glyph codes of
 * the embedded font's `TJ` strings mapped back through its ToUnicode CMap, the built-in fonts' literal strings kept.
 * One line per text operation, in the order drawn.
 */
export function pdfText(pdf: Uint8Array): string[] {
  const raw = Buffer.from(pdf).toString('latin1');
  const streams: string[] = [];
  for (const m of raw.matchAll(/stream\r?\n/g)) {
    const start = m.index + m[0].length;
    const end = raw.indexOf('endstream', start);
    const bytes = Buffer.from(raw.slice(start, end), 'latin1');
    try {
      streams.push(inflateSync(bytes).toString('latin1'));
    } catch {
      streams.push(bytes.toString('latin1'));
    }
  }
  const unicode = new Map<number, string>();
  for (const s of streams) {
    for (const range of s.matchAll(/<([0-9a-f]{4})> <([0-9a-f]{4})> \[([^\]]*)\]/gi)) {
      const first = parseInt(range[1]!, 16);
      [...range[3]!.matchAll(/<([0-9a-f ]+)>/gi)].forEach((entry, i) => {
        const units = entry[1]!.split(' ').map((h) => parseInt(h, 16));
        unicode.set(first + i, String.fromCharCode(...units));
      });
    }
  }
  const lines: string[] = [];
  for (const s of streams) {
    for (const op of s.matchAll(/\[([^\]]*)\] TJ/g)) {
      const text = [...op[1]!.matchAll(/<([0-9a-f]+)>|\(((?:\\.|[^\\)])*)\)/gi)]
        .map((part) =>
          part[1] !== undefined
            ? (part[1].match(/.{4}/g) ?? []).map((code) => unicode.get(parseInt(code, 16)) ?? '').join('')
            : part[2]!.replace(/\\(.)/g, '$1'),
        )
        .join('');
      lines.push(text);
    }
  }
  return lines;
}
