import { createReadStream, createWriteStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type pg from 'pg';
import { routes } from '@iot/contracts';
import { urlOf } from '@iot/contracts/http/route.ts';
import { waitFor } from '../harness/process.ts';

/** A device CSV written to `file` as an operator's export would be (BOM, header, one line per device); its size in bytes. */
export async function writeDeviceCsv(file: string, header: string, lines: Iterable<string>): Promise<number> {
  await pipeline(
    Readable.from(
      (function* () {
        yield `\uFEFF${header}\n`;
        for (const line of lines) yield `${line}\n`;
      })(),
    ),
    createWriteStream(file),
  );
  return (await stat(file)).size;
}

/**
 * The device file imported through the import route over real HTTP, streamed from disk as the request's body (never
 * held whole in memory), then waited for until the device list's read model shows every device of the tenant.
 */
export async function importDeviceCsv(
  api: { base: string; token: string },
  raw: pg.Client,
  file: string,
  options: { jobId: string; devices: number; tenantId?: string },
): Promise<{ created: number; failed: number }> {
  const bytes = (await stat(file)).size;
  const answer = await fetch(api.base + urlOf(routes['device.import'], { jobId: options.jobId, filename: 'devices.csv' }), {
    method: 'POST',
    headers: { authentication: api.token, 'content-type': 'text/csv', 'content-length': String(bytes) },
    body: Readable.toWeb(createReadStream(file)) as ReadableStream,
    duplex: 'half',
  } as RequestInit);
  const result = ((await answer.json()) as { data: { created: number; failed: number } }).data;
  if (result.created !== options.devices) throw new Error(`imported ${result.created} of ${options.devices}: ${JSON.stringify(result)}`);
  await waitFor(
    'the device list to show every imported device',
    async () =>
      // The per-group counts the projection keeps with its rows: counting 100,000 rows every poll took 64 ms of PostgreSQL's CPU each time.
      (
        await raw.query<{ n: number }>(`select coalesce(sum(total), 0)::int as n from rm_device_counts where tenant_id = $1`, [
          options.tenantId ?? 'bench',
        ])
      ).rows[0]!.n >= options.devices,
    3_600_000,
  );
  return result;
}
