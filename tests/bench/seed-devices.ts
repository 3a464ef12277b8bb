import { createReadStream, createWriteStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type pg from 'pg';
import { routes } from '@iot/contracts';
import { urlOf } from '@iot/contracts/http/route.ts';
import type { EventStore } from '@iot/contracts/ports/event-store.ts';
import type { Sql } from '@iot/contracts/ports/sql.ts';
import { deviceCounts, deviceRecount } from '@iot/projections/device/read.ts';
import { event } from '../fixtures/events.ts';
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

/**
 * The tenant's devices chosen by `where` (SQL over rm_devices) brought online as the presence events say so, then
 * waited for until the dashboard's counters count them: the projection moves the counters with the rows, which a
 * direct `update rm_devices set status` would leave behind. The number of devices brought online.
 */
export async function bringDevicesOnline(
  platform: { context: { store: EventStore; db: Sql } },
  raw: pg.Client,
  options: { tenantId: string; where: string },
): Promise<number> {
  const { tenantId } = options;
  const online = (
    await raw.query<{ id: string }>(`select id from rm_devices where tenant_id = $1 and status <> 'online' and (${options.where})`, [
      tenantId,
    ])
  ).rows.map((r) => r.id);
  const already = (await deviceCounts(platform.context.db, tenantId, { stationId: null })).online;
  const at = new Date().toISOString();
  for (let start = 0; start < online.length; start += 500) {
    await Promise.all(
      online
        .slice(start, start + 500)
        .map((deviceId) =>
          platform.context.store.append(
            `device-${tenantId}.${deviceId}`,
            [event('DeviceWentOnline', { deviceId, at }, { tenantId, occurredAt: at })],
            'any',
          ),
        ),
    );
  }
  await waitFor(
    'the devices read model to count the online devices',
    async () => (await deviceCounts(platform.context.db, tenantId, { stationId: null })).online >= already + online.length,
    600_000,
  );
  // The counters the dashboard reads, against the rows counted: what a bench that set the rows by hand broke.
  const [kept, counted] = await Promise.all([
    deviceCounts(platform.context.db, tenantId, { stationId: null }),
    deviceRecount(platform.context.db, tenantId, { stationId: null }),
  ]);
  if (JSON.stringify(kept) !== JSON.stringify(counted))
    throw new Error(`device counters ${JSON.stringify(kept)} differ from the rows ${JSON.stringify(counted)}`);
  return online.length;
}
