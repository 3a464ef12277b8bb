// @vitest-environment jsdom
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { ok, renderScreen, stubServer } from '../test/render.tsx';
import { StatTaskPage } from './StatTaskPage.tsx';

afterEach(() => {
  cleanup();
  localStorage.clear();
});

const task = {
  id: 's1',
  name: 'Hourly energy',
  dataType: 'deviceData',
  productId: null,
  attribute: 'energy',
  statType: 'sum',
  cycle: '1h',
  dimension: 'group',
  exclusion: { mode: 'stdDev', sigma: 3 },
  timeZone: 'Asia/Shanghai',
  remark: null,
  status: 'stopped',
  createTime: '2026-03-01T00:00:00Z',
  updateTime: '2026-03-01T00:00:00Z',
  backfill: null,
};
const tasks = ok({ rows: [task], total: 1, page: 1, pageSize: 20 });

describe('the statistic task screen', () => {
  it('lists a task in words, and enables it only after a confirm', async () => {
    const calls = stubServer({ 'GET /api/iot/statTask': tasks, 'PUT /api/iot/statTask/status': ok({ id: 's1' }) });
    const user = userEvent.setup();
    renderScreen(<StatTaskPage />);
    const row = await screen.findByRole('row', { name: /Hourly energy/ });
    expect(row.textContent).toContain('Beyond N standard deviations');
    expect(row.textContent).toContain('Group');
    await user.click(within(row).getByRole('button', { name: 'Enable' }));
    const ask = await screen.findByRole('alertdialog');
    expect(ask.textContent).toContain('Enable the statistic task "Hourly energy"?');
    expect(calls.filter((c) => c.method === 'PUT')).toEqual([]);
    await user.click(within(ask).getByRole('button', { name: 'OK' }));
    await waitFor(() => expect(calls.filter((c) => c.method === 'PUT').map((c) => c.body)).toEqual([{ id: 's1', status: 'enabled' }]));
  });

  it('deletes the selected tasks one call each after a confirm naming them', async () => {
    const two = ok({ rows: [task, { ...task, id: 's2', name: 'Daily water' }], total: 2, page: 1, pageSize: 20 });
    const calls = stubServer({ 'GET /api/iot/statTask': two, 'DELETE /api/iot/statTask': ok({ id: 's1' }) });
    const user = userEvent.setup();
    renderScreen(<StatTaskPage />);
    for (const name of [/Hourly energy/, /Daily water/]) {
      await user.click(within(await screen.findByRole('row', { name })).getByRole('checkbox', { name: 'Select this row' }));
    }
    await user.click(screen.getByRole('button', { name: 'Delete' }));
    const ask = await screen.findByRole('alertdialog');
    expect(ask.textContent).toContain('Hourly energy, Daily water');
    expect(calls.filter((c) => c.method === 'DELETE')).toEqual([]);
    await user.click(within(ask).getByRole('button', { name: 'Delete' }));
    await waitFor(() =>
      expect(calls.filter((c) => c.method === 'DELETE').map((c) => new URL(c.url, 'http://x').searchParams.get('id'))).toEqual([
        's1',
        's2',
      ]),
    );
  });

  it('shows a task’s results by window and key', async () => {
    stubServer({
      'GET /api/iot/statTask': tasks,
      'GET /api/iot/statResult': ok([{ windowStart: '2026-03-01T16:00:00.000Z', key: 'g1', value: 62, samples: 4 }]),
    });
    const user = userEvent.setup();
    renderScreen(<StatTaskPage />);
    const row = await screen.findByRole('row', { name: /Hourly energy/ });
    await user.click(within(row).getByRole('button', { name: 'Results' }));
    const dialog = await screen.findByRole('dialog');
    const result = await within(dialog).findByRole('row', { name: /g1/ });
    expect(result.textContent).toContain('62');
  });

  it('backfills a task over a past range, shows its progress, and cancels it after a confirm', async () => {
    const running = {
      ...task,
      backfill: { from: '2026-02-01T00:00:00.000Z', to: '2026-03-01T00:00:00.000Z', status: 'running', progress: 0.4 },
    };
    const calls = stubServer({
      'GET /api/iot/statTask': ok({ rows: [running], total: 1, page: 1, pageSize: 20 }),
      'GET /api/iot/statTask/detail': ok(running),
      'POST /api/iot/statTask/backfill/cancel': ok({ id: 's1' }),
    });
    const user = userEvent.setup();
    renderScreen(<StatTaskPage />);
    const row = await screen.findByRole('row', { name: /Hourly energy/ });
    expect(within(row).getByTestId('backfill-progress').textContent).toContain('Running 40%');
    await user.click(within(row).getByRole('button', { name: 'Cancel backfill' }));
    const ask = await screen.findByRole('alertdialog');
    expect(ask.textContent).toContain('Cancel the backfill of task "Hourly energy"?');
    await user.click(within(ask).getByRole('button', { name: 'OK' }));
    await waitFor(() => expect(calls.filter((c) => c.method === 'POST').map((c) => c.body)).toEqual([{ id: 's1' }]));
  });

  it('asks for a backfill from the chosen local dates', async () => {
    const calls = stubServer({ 'GET /api/iot/statTask': tasks, 'POST /api/iot/statTask/backfill': ok({ id: 'b1' }) });
    const user = userEvent.setup();
    renderScreen(<StatTaskPage />);
    const row = await screen.findByRole('row', { name: /Hourly energy/ });
    await user.click(within(row).getByRole('button', { name: 'Backfill' }));
    const dialog = await screen.findByRole('dialog');
    const from = within(dialog).getByTestId('backfill-from');
    const to = within(dialog).getByTestId('backfill-to');
    await user.clear(from);
    await user.type(from, '2026-02-01T00:00');
    await user.clear(to);
    await user.type(to, '2026-03-01T00:00');
    await user.click(within(dialog).getByRole('button', { name: 'Backfill' }));
    await waitFor(() =>
      expect(calls.filter((c) => c.method === 'POST').map((c) => c.body)).toEqual([
        { id: 's1', from: new Date('2026-02-01T00:00').toISOString(), to: new Date('2026-03-01T00:00').toISOString() },
      ]),
    );
  });
});
