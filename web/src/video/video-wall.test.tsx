// @vitest-environment jsdom
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { cleanup, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { emptyPage, ok, renderScreen, stubServer } from '../test/render.tsx';
import { VideoWallPage } from './VideoWallPage.tsx';

// jsdom plays no media: play() resolves and nothing more.
beforeAll(() => {
  HTMLMediaElement.prototype.play = () => Promise.resolve();
});
/** The address of the last call the screen made. */
const lastUrl = () => String(vi.mocked(globalThis.fetch).mock.calls.at(-1)?.[0]);

afterEach(() => {
  cleanup();
  localStorage.clear();
});

const camera = (id: string, name: string) => ({
  id,
  name,
  streamUrl: `https://gw.example.com/live/${id}.m3u8`,
  groupId: null,
  deviceId: null,
  location: 'Gate 1',
  remark: null,
  createTime: '2026-03-01T00:00:00Z',
  updateTime: '2026-03-01T00:00:00Z',
});

describe('the video wall', () => {
  it('says so when the tenant has no camera', async () => {
    stubServer({ 'GET /api/iot/camera': emptyPage });
    renderScreen(<VideoWallPage />);
    expect((await screen.findByTestId('video-empty')).textContent).toContain('No cameras yet');
  });

  it('shows a tile per camera with its name and status, an error state when the stream cannot play, and 9 per page on asking', async () => {
    stubServer({
      'GET /api/iot/camera': ok({ rows: [camera('c1', 'North gate'), camera('c2', 'Boiler room')], total: 2, page: 1, pageSize: 4 }),
    });
    const user = userEvent.setup();
    renderScreen(<VideoWallPage />);
    const tiles = await screen.findAllByTestId('video-tile');
    expect(tiles.map((t) => t.textContent)).toEqual([
      expect.stringContaining('North gate · Gate 1'),
      expect.stringContaining('Boiler room'),
    ]);
    // No player here (jsdom has no media source): each tile falls to its error state, with a retry.
    await waitFor(() => expect(tiles.every((t) => t.dataset.status === 'error')).toBe(true));
    expect(within(tiles[0]!).getByRole('alert').textContent).toBe('The stream cannot be played');
    expect(within(tiles[0]!).getByText('Signal lost')).toBeTruthy();
    expect(lastUrl()).toContain('pageSize=4');
    await user.click(screen.getByRole('radio', { name: '9 views' }));
    await waitFor(() => expect(lastUrl()).toContain('pageSize=9'));
  });
});
