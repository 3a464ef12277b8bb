// @vitest-environment jsdom
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { emptyPage, renderScreen, stubServer } from '../test/render.tsx';
import { HistoryPage } from './HistoryPage.tsx';

afterEach(() => {
  cleanup();
  localStorage.clear();
});

describe('historical query (spec §5)', () => {
  it('asks to complete the query conditions when no device or variable is chosen, and asks the server nothing', async () => {
    const calls = stubServer({ 'GET /api/iot/device': emptyPage });
    const user = userEvent.setup();
    renderScreen(<HistoryPage />);
    await user.click(await screen.findByRole('button', { name: 'Query' }));
    await waitFor(() => expect(document.querySelector('.notice')).not.toBeNull());
    expect(document.querySelector('.notice')!.textContent).toContain('Please complete the query conditions');
    expect(calls.filter((c) => c.path.startsWith('/api/iot/telemetry'))).toEqual([]);
  });
});
