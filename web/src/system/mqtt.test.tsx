// @vitest-environment jsdom
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { ok, renderScreen, stubServer } from '../test/render.tsx';
import { MqttPage } from './MqttPage.tsx';

afterEach(() => {
  cleanup();
  localStorage.clear();
});

const client = {
  clientId: 'd1/meter-1',
  kind: 'device',
  tenantId: 'acme',
  deviceId: 'd1',
  sn: 'SN-1',
  name: 'Meter 1',
  username: 'SN-1',
  address: '127.0.0.1:50000',
  connectedAt: '2026-03-02T04:00:00.000Z',
  messagesIn: 42,
  subscriptions: [{ topic: 'devices/SN-1/command/+', qos: 1 }],
};
const overview = {
  mode: 'embedded',
  address: 'mqtt://127.0.0.1:1883',
  healthy: true,
  listsClients: true,
  clients: [client],
  byTenant: [{ tenantId: 'acme', clients: 1 }],
  rates: { messagesIn: 42, perSecond: 0.7, windowSeconds: 60 },
};

describe('the MQTT screen', () => {
  it('shows the broker, its clients with subscriptions and rates, and disconnects a client after a confirm', async () => {
    const calls = stubServer({
      'GET /api/auth/mqtt': ok(overview),
      'POST /api/auth/mqtt/disconnect': ok({ disconnected: true }),
    });
    const user = userEvent.setup();
    renderScreen(<MqttPage />);
    const row = await screen.findByRole('row', { name: /meter-1/ }, { timeout: 10_000 });
    expect(row.textContent).toContain('Meter 1 (SN-1)');
    expect(row.textContent).toContain('devices/SN-1/command/+ (QoS 1)');
    expect(screen.getByText('Embedded Aedes')).toBeTruthy();
    expect(screen.getByText('0.7 msg/s')).toBeTruthy();
    expect(screen.getByTestId('mqtt-tenant').textContent).toBe('acme: 1');
    await user.click(within(row).getByRole('button', { name: 'Disconnect' }));
    const ask = await screen.findByRole('alertdialog');
    expect(ask.textContent).toContain('Disconnect the client "d1/meter-1"?');
    await user.click(within(ask).getByRole('button', { name: 'Disconnect' }));
    await waitFor(() => expect(calls.filter((c) => c.method === 'POST').map((c) => c.body)).toEqual([{ clientId: 'd1/meter-1' }]));
  });

  it('says that an external broker lists its clients in its own console', async () => {
    stubServer({
      'GET /api/auth/mqtt': ok({
        ...overview,
        mode: 'external',
        address: 'mqtt://broker:1883',
        listsClients: false,
        clients: [],
        byTenant: [],
      }),
    });
    renderScreen(<MqttPage />);
    expect(await screen.findByText('External broker (MQTT_URL)', {}, { timeout: 10_000 })).toBeTruthy();
    expect(screen.getByText('The external broker lists its clients and subscriptions in its own console.')).toBeTruthy();
  });
});
