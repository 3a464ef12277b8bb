// @vitest-environment jsdom
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { ok, renderScreen, stubServer } from '../test/render.tsx';
import { OtaTaskPage } from './OtaTaskPage.tsx';

afterEach(() => {
  cleanup();
  localStorage.clear();
});

const counts = { total: 20, nonExecution: 10, executing: 2, pause: 1, success: 6, fail: 1, cancel: 0 };
const task = {
  id: 't1',
  name: 'Meters to 2.0',
  file: { fileId: 'f1', name: 'meter-fw.bin', fileType: 'upgrade', version: '2.0', size: 1024, sha256: 'ab' },
  target: { kind: 'product', productId: 'p1' },
  waves: { size: 10, pauseSec: 0, failurePercent: 20 },
  status: 'executing',
  wave: 1,
  waveCount: 2,
  nextWaveAt: null,
  reason: null,
  counts,
  createTime: '2026-03-01T00:00:00Z',
  updateTime: '2026-03-01T00:00:00Z',
};
const tasks = ok({ rows: [task], total: 1, page: 1, pageSize: 20 });

describe('the upgrade task screen', () => {
  it('lists a task with its wave and progress, and pauses it only after a confirm', async () => {
    const calls = stubServer({ 'GET /api/iot/otaTask': tasks, 'PUT /api/iot/otaTask/pause': ok({ id: 't1' }) });
    const user = userEvent.setup();
    renderScreen(<OtaTaskPage />);
    const row = await screen.findByRole('row', { name: /Meters to 2.0/ });
    expect(row.textContent).toContain('Wave 1 of 2');
    expect(row.textContent).toContain('6 of 20 upgraded');
    expect(row.textContent).toContain('Executing');
    await user.click(within(row).getByRole('button', { name: 'Pause' }));
    const ask = await screen.findByRole('alertdialog');
    expect(ask.textContent).toContain('Pause the task "Meters to 2.0"?');
    expect(calls.filter((c) => c.method === 'PUT')).toEqual([]);
    await user.click(within(ask).getByRole('button', { name: 'OK' }));
    await waitFor(() => expect(calls.filter((c) => c.method === 'PUT').map((c) => c.body)).toEqual([{ id: 't1' }]));
  });

  it('shows the progress per wave and per device', async () => {
    stubServer({
      'GET /api/iot/otaTask': tasks,
      'GET /api/iot/otaTask/detail': ok({ ...task, waveCounts: [{ wave: 1, counts: { ...counts, total: 10, nonExecution: 0 } }] }),
      'GET /api/iot/otaTask/devices': ok({
        rows: [
          {
            deviceId: 'd1',
            sn: 'SN-1',
            wave: 1,
            status: 'executing',
            stage: 'downloading',
            percent: 40,
            fromVersion: '1.0',
            toVersion: null,
            reason: null,
            updateTime: '2026-03-01T00:00:00Z',
          },
          {
            deviceId: 'd2',
            sn: 'SN-2',
            wave: 1,
            status: 'fail',
            stage: 'failed',
            percent: null,
            fromVersion: '1.0',
            toVersion: null,
            reason: 'checksum mismatch',
            updateTime: '2026-03-01T00:00:00Z',
          },
          {
            deviceId: 'd3',
            sn: 'SN-3',
            wave: 1,
            status: 'success',
            stage: 'done',
            percent: 100,
            fromVersion: '1.0',
            toVersion: '2.0',
            reason: null,
            updateTime: '2026-03-01T00:00:00Z',
          },
        ],
        total: 3,
        page: 1,
        pageSize: 200,
      }),
    });
    const user = userEvent.setup();
    renderScreen(<OtaTaskPage />);
    const row = await screen.findByRole('row', { name: /Meters to 2.0/ });
    await user.click(within(row).getByRole('button', { name: 'Details' }));
    const dialog = await screen.findByRole('dialog');
    const downloading = await within(dialog).findByRole('row', { name: /SN-1/ });
    expect(downloading.textContent).toContain('Downloading');
    expect(downloading.textContent).toContain('40%');
    const failed = await within(dialog).findByRole('row', { name: /SN-2/ });
    expect(failed.textContent).toContain('checksum mismatch');
    // A settled device shows where it ended, not the last stage it reported (issue 21); the stage is the fourth cell.
    const stageOf = (row: HTMLElement) => within(row).getAllByRole('cell')[3]!.textContent;
    expect(stageOf(failed)).toBe('Failed');
    expect(stageOf(await within(dialog).findByRole('row', { name: /SN-3/ }))).toBe('Done');
  });

  it('asks for an upgrade package before anything else', async () => {
    const calls = stubServer({ 'GET /api/iot/otaTask': tasks, 'GET /api/iot/product': ok({ rows: [], total: 0, page: 1, pageSize: 500 }) });
    const user = userEvent.setup();
    renderScreen(<OtaTaskPage />);
    await screen.findByRole('row', { name: /Meters to 2.0/ });
    await user.click(screen.getByRole('button', { name: /Add/ }));
    const dialog = await screen.findByRole('dialog');
    await user.type(within(dialog).getByRole('textbox', { name: /Task name/ }), 'x');
    await user.click(within(dialog).getByRole('button', { name: /OK|Save|Submit/ }));
    expect(await within(dialog).findByText('Pick an upgrade package')).toBeTruthy();
    expect(calls.filter((c) => c.method === 'POST')).toEqual([]);
  });

  it('picks the upgrade package from the uploaded files a rollout may send', async () => {
    const file = (id: string, name: string, fileType: string, version: string | null) => ({
      id,
      name,
      size: 1_048_576,
      sizeMb: '1.00',
      sha256: 'ab',
      fileType,
      extensionType: null,
      version,
      declaration: null,
      uploaderId: 'u1',
      uploader: 'admin',
      createTime: '2026-03-01T00:00:00Z',
    });
    stubServer({
      'GET /api/iot/otaTask': tasks,
      'GET /api/iot/product': ok({ rows: [], total: 0, page: 1, pageSize: 500 }),
      'GET /api/iot/file': ok({
        rows: [file('f1', 'meter-fw.bin', 'upgrade', '2.0'), file('f2', 'manual.pdf', 'common', null)],
        total: 2,
        page: 1,
        pageSize: 500,
      }),
    });
    const user = userEvent.setup();
    renderScreen(<OtaTaskPage />);
    await screen.findByRole('row', { name: /Meters to 2.0/ });
    await user.click(screen.getByRole('button', { name: /Add/ }));
    const dialog = await screen.findByRole('dialog');
    await user.click(within(dialog).getByRole('combobox', { name: 'fileId' }));
    expect((await screen.findByRole('option', { name: 'meter-fw.bin (2.0) · 1.00 MB' })).textContent).toContain('meter-fw.bin');
    expect(screen.queryByRole('option', { name: /manual.pdf/ })).toBeNull();
  });
});
