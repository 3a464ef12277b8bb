// @vitest-environment jsdom
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { ok, renderScreen, stubServer } from '../test/render.tsx';
import { TasksPage } from './TasksPage.tsx';

afterEach(() => {
  cleanup();
  localStorage.clear();
});

const job = {
  id: 'statTask:s1',
  kind: 'statTask',
  sourceId: 's1',
  name: 'Hourly energy',
  schedule: '1h',
  timeZone: 'Asia/Shanghai',
  status: 'enabled',
  nextRun: '2026-03-02T04:00:00.000Z',
  lastRun: null,
  lastResult: null,
  durationMs: null,
  pending: null,
  canPause: true,
  canResume: false,
  canRunNow: false,
};
const retries = { ...job, id: 'forwardRetry:r1', kind: 'forwardRetry', sourceId: 'r1', name: 'To ERP', schedule: 'backoff' };

describe('the tasks screen', () => {
  it('lists each job with its schedule in words, and pauses a statistic task through its own route after a confirm', async () => {
    const calls = stubServer({
      'GET /api/auth/task': ok([
        job,
        { ...retries, timeZone: null, status: 'pending', pending: 3, lastResult: 'HTTP_STATUS_5XX', canPause: false },
      ]),
      'PUT /api/iot/statTask/status': ok({ id: 's1' }),
    });
    const user = userEvent.setup();
    renderScreen(<TasksPage />);
    // The first render builds the whole table: time for a busy machine.
    const row = await screen.findByRole('row', { name: /Hourly energy/ }, { timeout: 10_000 });
    expect(row.textContent).toContain('Hourly (Asia/Shanghai)');
    expect(row.textContent).toContain('Running');
    const retry = screen.getByRole('row', { name: /To ERP/ });
    expect(retry.textContent).toContain('Back-off retries');
    expect(retry.textContent).toContain('HTTP_STATUS_5XX');
    expect(within(retry).queryByRole('button')).toBeNull();
    await user.click(within(row).getByRole('button', { name: 'Pause' }));
    const ask = await screen.findByRole('alertdialog');
    expect(ask.textContent).toContain('Pause the job "Hourly energy"?');
    await user.click(within(ask).getByRole('button', { name: 'OK' }));
    await waitFor(() => expect(calls.filter((c) => c.method === 'PUT').map((c) => c.body)).toEqual([{ id: 's1', status: 'stopped' }]));
  });
});
