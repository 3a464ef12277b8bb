// @vitest-environment jsdom
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { ok, renderScreen, stubServer } from '../test/render.tsx';
import { FieldConfigPage } from './FieldConfigPage.tsx';

afterEach(() => {
  cleanup();
  localStorage.clear();
});

const nodes = [
  { id: 'r', parentId: null, name: 'East region', type: 'institution', isSite: false, configured: false },
  { id: 's', parentId: 'r', name: 'Solar farm 1', type: 'powerStation', isSite: true, configured: false },
];
const fields = [{ key: 'inverters', labelZh: '逆变器数量', labelEn: 'Inverters', type: 'number', required: true }];
const site = {
  groupId: 's',
  name: 'Solar farm 1',
  type: 'powerStation',
  commissioningDate: null,
  ratedCapacityKw: null,
  address: '',
  contacts: [],
  custom: {},
  updateTime: null,
};
const notices = () => [...document.querySelectorAll('.notice')].map((n) => n.textContent);

describe('field configuration screen (issue 20)', () => {
  it('picks a site on the tree, shows its devices, and saves its parameters once the required custom field is filled', async () => {
    const calls = stubServer({
      'GET /api/power/fieldConfig/sites': ok(nodes),
      'GET /api/power/fieldConfig/fields': ok(fields),
      'GET /api/power/fieldConfig/site': ok(site),
      'GET /api/power/fieldConfig/devices': ok([
        { id: 'd1', sn: 'INV-1', name: 'Inverter 1', productName: 'Inverter', groupName: 'Room', status: 'online' },
      ]),
      'PUT /api/power/fieldConfig/site': ok({ groupId: 's' }),
    });
    const user = userEvent.setup();
    renderScreen(<FieldConfigPage />);
    expect(await screen.findByText('Pick a site, power station or project on the left')).toBeTruthy();
    await user.click(await screen.findByRole('button', { name: 'Solar farm 1' }));
    expect(await screen.findByText('Inverter 1')).toBeTruthy();
    await user.type(await screen.findByRole('textbox', { name: /Rated capacity/ }), '5000');
    await user.click(screen.getByRole('button', { name: 'Save' }));
    expect((await screen.findByRole('alert')).textContent).toBe('Required');
    expect(calls.filter((c) => c.method === 'PUT')).toEqual([]);
    await user.type(screen.getByRole('textbox', { name: /Inverters/ }), '12');
    await user.click(screen.getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(calls.filter((c) => c.method === 'PUT')).toHaveLength(1));
    expect(calls.find((c) => c.method === 'PUT')!.body).toEqual({
      groupId: 's',
      commissioningDate: null,
      ratedCapacityKw: 5000,
      address: '',
      contacts: [],
      custom: { inverters: 12 },
    });
    await waitFor(() => expect(notices()).toContain('Operation tipSite parameters saved'));
  });
});
