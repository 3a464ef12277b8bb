// @vitest-environment jsdom
import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { routes } from '@iot/contracts';
import { ok, renderScreen, stubServer } from '../test/render.tsx';
import { FilePage } from './FilePage.tsx';

afterEach(() => {
  cleanup();
  localStorage.clear();
  vi.unstubAllGlobals();
});

const file = {
  id: 'f1',
  name: 'gateway-fw-2.1.bin',
  size: 1_572_864,
  sizeMb: '1.50',
  sha256: 'ab'.repeat(32),
  fileType: 'upgrade',
  extensionType: 'CLI',
  version: '2.1.0',
  declaration: 'gateway firmware',
  uploaderId: 'u1',
  uploader: 'boss',
  createTime: '2026-03-01T00:00:00Z',
};
const MB = 1024 * 1024;
const server = (more: Record<string, ReturnType<typeof ok>> = {}) =>
  stubServer({
    'GET /api/iot/file': ok({ rows: [file], total: 1, page: 1, pageSize: 20 }),
    'GET /api/iot/file/usage': ok({ usedBytes: file.size, quotaBytes: 10_240 * MB, maxFileBytes: 2_048 * MB }),
    ...more,
  });

describe('the file management screen', () => {
  it('lists a file with its type in words and its size in MB with 2 decimals, and the quota used', async () => {
    server();
    renderScreen(<FilePage />);
    const row = await screen.findByRole('row', { name: /gateway-fw-2\.1\.bin/ });
    expect(row.textContent).toContain('Upgrade file');
    expect(row.textContent).toContain('1.50');
    expect(row.textContent).toContain('2.1.0');
    expect(await screen.findByText('1.50 MB used of a 10240.00 MB quota; one file at most 2048.00 MB')).toBeTruthy();
  });

  it('deletes a file only after a confirm', async () => {
    const calls = server({ 'DELETE /api/iot/file': ok({ id: 'f1' }) });
    const user = userEvent.setup();
    renderScreen(<FilePage />);
    const row = await screen.findByRole('row', { name: /gateway-fw-2\.1\.bin/ });
    await user.click(within(row).getByRole('checkbox'));
    await user.click(screen.getByRole('button', { name: 'Delete' }));
    const ask = await screen.findByRole('alertdialog');
    expect(ask.textContent).toContain('gateway-fw-2.1.bin');
    expect(calls.filter((c) => c.method === 'DELETE')).toEqual([]);
    await user.click(within(ask).getByRole('button', { name: 'Delete' }));
    await waitFor(() => expect(calls.filter((c) => c.method === 'DELETE').map((c) => c.path)).toEqual(['/api/iot/file']));
  });

  it('shows an upload cut by a reload with the progress the server holds, ready to resume', async () => {
    const uploadUrl = `${routes['file.upload'].path}/abc123`;
    localStorage.setItem(
      'tus::tus-br-big.bin-application/octet-stream-4194304-1-/api/iot/file/upload::1',
      JSON.stringify({ size: 4 * MB, metadata: { name: 'big.bin', fileType: 'upgrade' }, creationTime: 'x', uploadUrl }),
    );
    server();
    const inner = globalThis.fetch;
    vi.stubGlobal('fetch', (input: string, init: RequestInit = {}) =>
      init.method === 'HEAD' && input === uploadUrl
        ? Promise.resolve(new Response(null, { status: 200, headers: { 'upload-offset': String(MB) } }))
        : inner(input, init),
    );
    renderScreen(<FilePage />);
    const region = await screen.findByRole('region', { name: 'Unfinished uploads' });
    await waitFor(() => expect(region.textContent).toContain('25% uploaded'));
    expect(region.textContent).toContain('big.bin (4.00 MB)');
    await userEvent.setup().click(within(region).getByRole('button', { name: 'Resume' }));
    expect((await screen.findByRole('dialog')).textContent).toContain('Resume: big.bin');
  });
});
