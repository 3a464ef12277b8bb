import { constants, crc32, deflateRawSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPlatform, type TestPlatform } from '../harness/platform.ts';

/**
 * Issue 24: a 1 MB XLSX that inflates to 1 GiB. The import looks at the archive's central directory before it inflates
 * anything, counts every byte it inflates against what the directory declared, and refuses at once: the process
 * (this one: the platform runs in the test's process) grows by a few MB, not by hundreds.
 */
let sut: TestPlatform;
let token: string;
const GIB = 1024 * 1024 * 1024;
const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

beforeAll(async () => {
  sut = await startTestPlatform();
  await sut.seedTenant({ id: 'bomb', name: 'bombCo', adminUsername: 'bombAdmin', adminPassword: 'Bomb#pw1' });
  token = await sut.login('bombAdmin', 'Bomb#pw1');
  const product = await sut.call('product.create', { token, body: { name: 'Bomb', code: 'BOMB', type: 'direct' } });
  expect(product.status).toBe(200);
  await sut.platform.runner.catchUp();
}, 120_000);
afterAll(async () => sut?.stop());

interface ZipEntry {
  name: string;
  /** Raw deflate data. */
  data: Buffer;
  crc: number;
  size: number;
}

/** A zip of deflated entries; `declare` says the uncompressed size its headers claim (the truth unless it lies). */
function zip(entries: ZipEntry[], declare: (e: ZipEntry) => number = (e) => e.size): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const e of entries) {
    const name = Buffer.from(e.name);
    const header = (signature: number, central: boolean) => {
      const b = Buffer.alloc(central ? 46 : 30);
      let at = 0;
      const u32 = (v: number) => (at = b.writeUInt32LE(v >>> 0, at));
      const u16 = (v: number) => (at = b.writeUInt16LE(v, at));
      u32(signature);
      if (central) u16(20);
      u16(20);
      u16(0);
      u16(8);
      u16(0);
      u16(0x21);
      u32(e.crc);
      u32(e.data.length);
      u32(declare(e));
      u16(name.length);
      u16(0);
      if (central) {
        u16(0);
        u16(0);
        u16(0);
        u32(0);
        u32(offset);
      }
      return b;
    };
    const local = Buffer.concat([header(0x04034b50, false), name, e.data]);
    centrals.push(Buffer.concat([header(0x02014b50, true), name]));
    locals.push(local);
    offset += local.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

const deflated = (name: string, text: string): ZipEntry => {
  const bytes = Buffer.from(text);
  return { name, data: deflateRawSync(bytes), crc: crc32(bytes), size: bytes.length };
};

/**
 * A worksheet of `bytes` (about): a header, a row, then blank space between rows (valid XML, and deflate's best case,
 * about 1000 to 1), 1 MiB of it deflated once and repeated, the raw deflate blocks concatenated.
 */
function sheetBomb(bytes: number): ZipEntry {
  const head = Buffer.from(
    '<?xml version="1.0" encoding="UTF-8"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>' +
      '<row r="1"><c r="A1" t="inlineStr"><is><t>sn</t></is></c><c r="B1" t="inlineStr"><is><t>name</t></is></c><c r="C1" t="inlineStr"><is><t>product</t></is></c></row>' +
      '<row r="2"><c r="A2" t="inlineStr"><is><t>BOMB-1</t></is></c><c r="B2" t="inlineStr"><is><t>x</t></is></c><c r="C2" t="inlineStr"><is><t>BOMB</t></is></c></row>',
  );
  const chunk = Buffer.alloc(1024 * 1024, ' ');
  const tail = Buffer.from('</sheetData></worksheet>');
  const flush = { finishFlush: constants.Z_FULL_FLUSH };
  const repeats = Math.ceil(bytes / chunk.length);
  const parts = [deflateRawSync(head, flush)];
  let crc = crc32(head);
  const block = deflateRawSync(chunk, flush);
  for (let i = 0; i < repeats; i++) {
    parts.push(block);
    crc = crc32(chunk, crc);
  }
  parts.push(deflateRawSync(tail));
  crc = crc32(tail, crc);
  return { name: 'xl/worksheets/sheet1.xml', data: Buffer.concat(parts), crc, size: head.length + repeats * chunk.length + tail.length };
}

const parts = [
  deflated(
    '[Content_Types].xml',
    '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="xml" ContentType="application/xml"/></Types>',
  ),
  deflated(
    'xl/workbook.xml',
    '<?xml version="1.0" encoding="UTF-8"?><workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets><sheet name="Sheet1" sheetId="1" r:id="rId1"/></sheets></workbook>',
  ),
  deflated(
    'xl/_rels/workbook.xml.rels',
    '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/></Relationships>',
  ),
];

/** Uploads a file, sampling this process's resident memory meanwhile: the answer, its time and the growth at the peak. */
async function measured(file: Buffer, jobId: string) {
  const before = process.memoryUsage().rss;
  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 10);
  const started = performance.now();
  try {
    const answer = await sut.call('device.import', {
      token,
      query: { jobId, filename: 'bomb.xlsx' },
      body: file,
      headers: { 'content-type': XLSX },
    });
    peak = Math.max(peak, process.memoryUsage().rss);
    return { answer, ms: performance.now() - started, growthMb: (peak - before) / 2 ** 20 };
  } finally {
    clearInterval(sampler);
  }
}

describe('an XLSX zip bomb', () => {
  const bomb = sheetBomb(GIB);

  it('is a 1 GiB sheet in about 1 MB', () => {
    expect(bomb.size).toBeGreaterThanOrEqual(GIB);
    expect(zip([...parts, bomb]).length).toBeLessThan(1.5 * 1024 * 1024);
  });

  it.each([
    ['says what it holds (1 GiB in its central directory)', (e: ZipEntry) => e.size],
    ['lies about it (its headers claim 64 KB)', (e: ZipEntry) => (e === bomb ? 64 * 1024 : e.size)],
  ])('that %s is refused at once with 413, the process growing by less than 64 MB', async (_what, declare) => {
    const { answer, ms, growthMb } = await measured(zip([...parts, bomb], declare), `bomb-${declare(bomb)}`);
    console.log(`xlsx bomb (${_what}): ${answer.status} in ${Math.round(ms)} ms, rss +${growthMb.toFixed(1)} MB`);
    expect(answer.status, answer.body).toBe(413);
    expect(answer.json!.data.error).toBe('FILE_INFLATED_TOO_LARGE');
    expect(growthMb).toBeLessThan(64);
    expect(ms).toBeLessThan(5_000);
    const job = await sut.db.pool.query(`select status from device_import_jobs where tenant_id = 'bomb' and job_id = $1`, [
      `bomb-${declare(bomb)}`,
    ]);
    expect(job.rows).toEqual([{ status: 'failed' }]);
  });

  it('leaves a spreadsheet of the same parts, honestly small, imported', async () => {
    const sheet = deflated(
      'xl/worksheets/sheet1.xml',
      '<?xml version="1.0" encoding="UTF-8"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>' +
        '<row r="1"><c r="A1" t="inlineStr"><is><t>sn</t></is></c><c r="B1" t="inlineStr"><is><t>name</t></is></c><c r="C1" t="inlineStr"><is><t>product</t></is></c></row>' +
        '<row r="2"><c r="A2" t="inlineStr"><is><t>BOMB-OK-1</t></is></c><c r="B2" t="inlineStr"><is><t>fine</t></is></c><c r="C2" t="inlineStr"><is><t>BOMB</t></is></c></row>' +
        '</sheetData></worksheet>',
    );
    const { answer } = await measured(zip([...parts, sheet]), 'bomb-small-1');
    expect(answer.status, answer.body).toBe(200);
    expect(answer.json!.data).toMatchObject({ total: 1, created: 1, failed: 0 });
  });
});
