// @vitest-environment jsdom
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { ok, renderScreen, stubServer } from '../test/render.tsx';
import { OtaTaskPage } from './OtaTaskPage.tsx';

afterEach(() => {
  cleanup();
  localStorage.clear();
});

const task = {
  id: 'r1',
  name: 'Nightly restart',
  target: { kind: 'product', productId: 'p1' },
  status: 'executing',
  taskTime: '2026-03-01T00:00:00Z',
  expiry: '2026-03-01T01:00:00Z',
  counts: { total: 4, nonExecution: 0, executing: 0, pause: 1, success: 2, fail: 1, cancel: 0 },
  createTime: '2026-03-01T00:00:00Z',
  updateTime: '2026-03-01T00:00:00Z',
};
const empty = ok({ rows: [], total: 0, page: 1, pageSize: 20 });
const server = (more: Record<string, unknown> = {}) =>
  stubServer({
    'GET /api/iot/otaTask': empty,
    'GET /api/iot/restartTask': ok({ rows: [task], total: 1, page: 1, pageSize: 20 }),
    'GET /api/iot/product': ok({ rows: [], total: 0, page: 1, pageSize: 500 }),
    ...more,
  });

async function openRestartTab() {
  const user = userEvent.setup();
  renderScreen(<OtaTaskPage />);
  await user.click(await screen.findByRole('tab', { name: /Restart tasks/ }));
  return { user, row: await screen.findByRole('row', { name: /Nightly restart/ }) };
}

describe('the restart tasks tab', () => {
  it("lists a task with its progress, shows each device's result, and cancels only after a confirm", async () => {
    const calls = server({
      'GET /api/iot/restartTask/devices': ok({
        rows: [
          { deviceId: 'd1', sn: 'SN-1', status: 'success', reason: null, updateTime: '2026-03-01T00:00:01Z' },
          { deviceId: 'd2', sn: 'SN-2', status: 'fail', reason: 'expired', updateTime: '2026-03-01T01:00:00Z' },
        ],
        total: 2,
        page: 1,
        pageSize: 500,
      }),
      'PUT /api/iot/restartTask/cancel': ok({ id: 'r1' }),
    });
    const { user, row } = await openRestartTab();
    expect(row.textContent).toContain('2 of 4 restarted');
    await user.click(within(row).getByRole('button', { name: 'Details' }));
    const dialog = await screen.findByRole('dialog');
    expect((await within(dialog).findByRole('row', { name: /SN-2/ })).textContent).toContain('expired');
    await user.click(within(dialog).getByRole('button', { name: 'Close' }));
    await user.click(within(row).getByRole('button', { name: 'Cancel task' }));
    const ask = await screen.findByRole('alertdialog');
    expect(ask.textContent).toContain('Cancel the restart task "Nightly restart"?');
    expect(calls.filter((c) => c.method === 'PUT')).toEqual([]);
    await user.click(within(ask).getByRole('button', { name: 'OK' }));
    await waitFor(() => expect(calls.filter((c) => c.method === 'PUT').map((c) => c.body)).toEqual([{ id: 'r1' }]));
  });

  it('refuses an expiry that is not later than the task time before sending anything', async () => {
    const calls = server();
    const { user } = await openRestartTab();
    await user.click(screen.getByRole('button', { name: /Add/ }));
    const dialog = await screen.findByRole('dialog');
    await user.type(within(dialog).getByRole('textbox', { name: /Task name/ }), 'x');
    const taskTime = dialog.querySelector<HTMLInputElement>('input[name="taskTime"]')!;
    fireEvent.change(dialog.querySelector('input[name="expiry"]')!, { target: { value: taskTime.value } });
    await user.click(within(dialog).getByRole('button', { name: /OK|Save|Submit/ }));
    expect(await within(dialog).findByText('The expiry must be later than the task time')).toBeTruthy();
    expect(calls.filter((c) => c.method === 'POST')).toEqual([]);
  });
});
