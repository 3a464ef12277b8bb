// @vitest-environment jsdom
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { ok, renderScreen, stubServer } from '../test/render.tsx';
import { GroupingPage } from './GroupingPage.tsx';

afterEach(() => {
  cleanup();
  localStorage.clear();
});

const group = (id: string, name: string, type: string, children: unknown[] = []) => ({
  id,
  name,
  type,
  location: null,
  sort: 0,
  parentId: null,
  createdAt: '2026-01-01T00:00:00Z',
  children,
});
const tree = [
  group('east', 'East region', 'institution', [group('plant', 'Pudong plant', 'powerStation'), group('office', 'Office', 'office')]),
];
const device = (id: string, name: string, groupId: string | null) => ({
  id,
  sn: `SN-${id}`,
  name,
  productId: 'p1',
  productName: 'Meter',
  nodeType: 'direct',
  groupId,
  groupName: groupId,
  gatewayId: null,
  gatewayName: null,
  status: 'online',
  enabled: true,
  lng: null,
  lat: null,
  address: null,
  version: null,
  tags: [],
  remark: null,
  modelVersion: 1,
  lastReportAt: null,
  subDeviceCount: 0,
  createTime: '2026-01-01T00:00:00Z',
});
const devices = [device('d1', 'meter one', 'plant'), device('d2', 'meter two', 'plant'), device('d3', 'sensor', 'office')];

function server() {
  return stubServer({
    'GET /api/auth/dept': ok(tree),
    'GET /api/iot/device/groupCounts': ok([
      { groupId: 'plant', total: 4, online: 3 },
      { groupId: 'office', total: 1, online: 0 },
      { groupId: null, total: 2, online: 2 },
    ]),
    'GET /api/iot/device': ok({ rows: devices, total: 3, page: 1, pageSize: 20 }),
    'PUT /api/iot/device/group': ok({ id: 'd3' }),
    'POST /api/iot/device/bulk': ok({ ok: 2, failed: 0, results: [] }),
  });
}
const entry = (name: string) => screen.getAllByRole('treeitem').find((e) => e.textContent?.includes(name))!;

describe('device grouping (spec §2)', () => {
  it('shows the group tree with each group type, its devices over its subtree and their online rate', async () => {
    server();
    renderScreen(<GroupingPage />);
    await waitFor(() => expect(entry('Pudong plant').textContent).toContain('4 · 75% online'));
    expect(entry('Pudong plant').textContent).toContain('Power station');
    expect(entry('East region').textContent).toContain('5 · 60% online');
    expect(entry('Office').textContent).toContain('1 · 0% online');
    expect(entry('All devices').textContent).toContain('7 · 71% online');
  });

  it("lists the chosen group's devices (its subtree)", async () => {
    server();
    const user = userEvent.setup();
    renderScreen(<GroupingPage />);
    await waitFor(() => expect(entry('Office')).toBeTruthy());
    await user.click(within(entry('Office')).getByRole('button', { name: 'Office' }));
    await waitFor(() => expect(screen.getByTestId('grouping-title').textContent).toBe('Office'));
    const urls = () => (globalThis.fetch as unknown as { mock: { calls: [string][] } }).mock.calls.map(([url]) => url);
    await waitFor(() => expect(urls().some((u) => u.startsWith('/api/iot/device?') && u.includes('groupId=office'))).toBe(true));
  });

  it('moves the selected devices to a group at once', async () => {
    const calls = server();
    const user = userEvent.setup();
    renderScreen(<GroupingPage />);
    for (const name of ['meter one', 'meter two'])
      await user.click(within(await screen.findByRole('row', { name: new RegExp(name) })).getByRole('checkbox'));
    await user.click(screen.getByRole('button', { name: 'Move to group' }));
    const dialog = await screen.findByRole('dialog');
    expect(within(dialog).getByRole('heading').textContent).toBe('Move the 2 selected devices');
    await user.click(within(dialog).getByRole('combobox'));
    await user.click(await screen.findByRole('option', { name: /Office/ }));
    await user.click(within(dialog).getByRole('button', { name: 'Move' }));
    await waitFor(() => expect(calls.filter((c) => c.method === 'POST')).toHaveLength(1));
    expect(calls.find((c) => c.method === 'POST')!.body).toEqual({ action: 'moveGroup', ids: ['d1', 'd2'], groupId: 'office' });
  });

  it('moves one device dragged onto a group', async () => {
    const calls = server();
    renderScreen(<GroupingPage />);
    const handle = await screen.findByRole('button', { name: 'sensor' });
    const data = new Map<string, string>();
    const dataTransfer = {
      setData: (k: string, v: string) => data.set(k, v),
      getData: (k: string) => data.get(k) ?? '',
      get types() {
        return [...data.keys()];
      },
      effectAllowed: 'all',
    };
    fireEvent.dragStart(handle, { dataTransfer });
    const target = await waitFor(() => entry('Pudong plant'));
    fireEvent.dragOver(target, { dataTransfer });
    fireEvent.drop(target, { dataTransfer });
    await waitFor(() => expect(calls.filter((c) => c.method === 'PUT')).toHaveLength(1));
    expect(calls.find((c) => c.method === 'PUT')!.body).toEqual({ id: 'd3', groupId: 'plant' });
  });
});
