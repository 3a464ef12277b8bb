// @vitest-environment jsdom
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { ok, renderScreen, stubServer } from '../test/render.tsx';
import { MqttServerPage } from './ForwardPages.tsx';

afterEach(() => {
  cleanup();
  localStorage.clear();
});

const server = (id: string, name: string) => ({
  id,
  type: 'mqtt',
  name,
  ip: '52.10.20.30',
  port: 1883,
  url: null,
  username: null,
  clientId: null,
  tls: false,
  remark: null,
  hasPassword: false,
  createTime: '2026-01-01T00:00:00Z',
});
const servers = ok({ rows: [server('s1', 'Plant A'), server('s2', 'Plant B')], total: 2, page: 1, pageSize: 20 });
const notices = () => [...document.querySelectorAll('.notice')].map((n) => n.textContent);

describe('MQTT services screen (spec §5, §8)', () => {
  it('edits exactly one service: two selected are refused with the spec’s prompt', async () => {
    stubServer({ 'GET /api/iot/forwardServer/mqtt': servers });
    const user = userEvent.setup();
    renderScreen(<MqttServerPage />);
    for (const box of await screen.findAllByRole('checkbox', { name: 'Select this row' })) await user.click(box);
    await user.click(screen.getByRole('button', { name: 'Edit' }));
    await waitFor(() => expect(notices().length).toBeGreaterThan(0));
    expect(notices()).toEqual(['Operation tiponly one service can be selected for editing']);
    expect(screen.queryByRole('dialog')).toBeNull();
  });

  it('checks the IPv4 form and the port before sending, then says MQTT added', async () => {
    const calls = stubServer({ 'GET /api/iot/forwardServer/mqtt': servers, 'POST /api/iot/forwardServer/mqtt': ok({ id: 's3' }) });
    const user = userEvent.setup();
    renderScreen(<MqttServerPage />);
    await user.click(await screen.findByRole('button', { name: 'Add' }));
    const dialog = await screen.findByRole('dialog');
    const input = (name: string) => dialog.querySelector<HTMLInputElement>(`input[name="${name}"]`)!;
    await user.type(input('name'), 'Plant C');
    await user.type(input('ip'), '300.1.1.1');
    await user.clear(input('port'));
    await user.type(input('port'), '70000');
    await user.click(within(dialog).getByRole('button', { name: 'Save' }));
    expect(calls.filter((c) => c.method === 'POST')).toEqual([]);
    await user.clear(input('ip'));
    await user.type(input('ip'), '52.10.20.31');
    await user.clear(input('port'));
    await user.type(input('port'), '8883');
    await user.click(within(dialog).getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(calls.filter((c) => c.method === 'POST')).toHaveLength(1));
    expect(calls.find((c) => c.method === 'POST')!.body).toMatchObject({ name: 'Plant C', ip: '52.10.20.31', port: 8883 });
    await waitFor(() => expect(notices()).toContain('Operation tipMQTT added'));
  });
});
