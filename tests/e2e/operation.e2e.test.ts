import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { event, manualAlarm } from '../fixtures/events.ts';
import { startBrowserPlatform, type BrowserPlatform } from '../harness/browser.ts';
import { httpClientAs } from '../harness/http-client.ts';

/**
 * The operation center's data map, data big screen and configuration diagrams as an operator opens them (issue 20),
 * in en and zh: two pumps with coordinates, one in alarm and reporting a pressure, and a diagram bound to it.
 * Screenshots go to SHOTS_DIR.
 */
const SHOTS = process.env.SHOTS_DIR ?? path.join(tmpdir(), 'shots-operation');
const wait = { timeout: 20_000 };

describe('operation center screens in a real browser', () => {
  let sut: BrowserPlatform;
  let diagramId: string;
  const devices: string[] = [];

  beforeAll(async () => {
    sut = await startBrowserPlatform({ id: 'zulu', name: 'zuluCo', adminUsername: 'zuluAdmin', adminPassword: 'Zulu#pw1' });
    mkdirSync(SHOTS, { recursive: true });
    const api = await httpClientAs(sut.base, 'zuluAdmin', 'Zulu#pw1');
    const groupId = (await api.call('group.create', { body: { name: 'Pump station', type: 'site', parentId: null } })).id;
    const productId = (await api.call('product.create', { body: { name: 'Pump', code: 'PMP', type: 'direct' } })).id;
    const pressure = { type: 'property', name: '压力', identifier: 'pressure', dataType: { type: 'float', min: 0, max: 10, unit: 'MPa' } };
    await api.call('product.defineFunction', { body: { productId, function: pressure } });
    const running = { type: 'property', name: '运行', identifier: 'running', access: 'rw', dataType: { type: 'bool' } };
    await api.call('product.defineFunction', { body: { productId, function: running } });
    await api.call('product.publish', { body: { id: productId } });
    for (const [sn, lng, lat] of [
      ['PUMP-1', 121.47, 31.23],
      ['PUMP-2', 113.26, 23.13],
    ] as const)
      devices.push(
        (
          await api.call('device.create', {
            body: { sn, name: `pump ${sn.slice(-1)}`, productId, groupId, location: { lng, lat, address: null } },
          })
        ).id,
      );
    // A gateway with a meter behind it, for the topology (neither has coordinates).
    const edge = (await api.call('product.create', { body: { name: 'Edge', code: 'EDGE', type: 'gateway' } })).id;
    const meter = (await api.call('product.create', { body: { name: 'Meter', code: 'MTR', type: 'subDevice' } })).id;
    const gatewayId = (await api.call('device.create', { body: { sn: 'EDGE-1', name: 'edge 1', productId: edge, groupId } })).id;
    await api.call('device.create', { body: { sn: 'MTR-1', name: 'meter 1', productId: meter, groupId, gatewayId } });
    const at = new Date(Date.now() - 3_600_000).toISOString();
    const raised = manualAlarm('z1', devices[0]!, 4, at, { ruleName: 'Pressure high', variable: 'pressure', value: 9 });
    await sut.platform.context.store.append('alarm-zulu.z1', [event('AlarmRaised', raised, { tenantId: 'zulu', occurredAt: at })], 'any');
    await sut.platform.timeseries!.insertTelemetry([
      {
        tenantId: 'zulu',
        deviceId: devices[0]!,
        productId,
        variable: 'pressure',
        ts: new Date(Date.now() - 60_000),
        value: 3.5,
        text: null,
      },
    ]);
    const widget = { x: 40, y: 40, label: 'Pressure', deviceId: devices[0], property: 'pressure' };
    diagramId = (
      await api.call('diagram.create', {
        body: {
          name: 'Pump room',
          widgets: [
            { id: 'w1', kind: 'value', ...widget },
            { id: 'w2', kind: 'gauge', min: 0, max: 10, ...widget, x: 240 },
          ],
        },
      })
    ).id;
    await sut.platform.runner.catchUp();
  }, 300_000);
  afterAll(async () => sut?.stop());

  const operator = (lang: 'en' | 'zh') => sut.loggedIn({ lang, account: 'zuluAdmin', password: 'Zulu#pw1' });

  for (const lang of ['en', 'zh'] as const) {
    it(`shows the data map, its device card, the big screen and a live diagram (${lang})`, async () => {
      const page = await operator(lang);
      await page.setViewportSize({ width: 1600, height: 1000 });
      await page.goto(`${sut.base}/operation/dataMap`);
      await expect.poll(() => page.getByTestId('data-map').getAttribute('data-count'), wait).toBe('2');
      await expect
        .poll(() => page.getByTestId('map-summary').textContent())
        .toContain(lang === 'en' ? 'of 4 devices; 2 without' : '共 4 台，2 台未设置');
      await expect.poll(() => page.locator('[data-testid=data-map] canvas').count()).toBe(1);
      // The axes run over China with a degree's margin: 72..136 east, 17..55 north; PUMP-1 sits at 121.47/31.23.
      const box = (await page.getByTestId('data-map').boundingBox())!;
      const [left, right, top, bottom] = [48, 24, 24, 40];
      const x = box.x + left + ((121.47 - 72) / (136 - 72)) * (box.width - left - right);
      const y = box.y + top + ((55 - 31.23) / (55 - 17)) * (box.height - top - bottom);
      await page.mouse.click(x, y);
      await expect.poll(() => page.getByTestId('map-card').textContent(), wait).toContain('PUMP-1');
      await expect.poll(() => page.getByTestId('map-card-latest').textContent(), wait).toContain('3.5 MPa');
      await page.screenshot({ path: path.join(SHOTS, `data-map-${lang}.png`), fullPage: true });
      // No pump is online: the filter leaves the map empty, and says so.
      await page.getByRole('radio', { name: lang === 'en' ? 'Online' : '在线' }).click();
      await expect.poll(() => page.getByTestId('map-empty').count(), wait).toBe(1);
      expect(await page.getByTestId('data-map').getAttribute('data-count')).toBe('0');

      await page.goto(`${sut.base}/operation/bigScreen`);
      await expect.poll(() => page.getByTestId('bs-devices').textContent(), wait).toBe('4');
      expect(await page.getByTestId('bs-alarms').textContent()).toBe('1');
      await expect.poll(() => page.locator('.big-screen canvas').count(), wait).toBe(5);
      await expect.poll(() => page.getByTestId('bs-recent').textContent()).toContain('pump 1');
      await page.screenshot({ path: path.join(SHOTS, `big-screen-${lang}.png`), fullPage: true });

      await page.goto(`${sut.base}/operation/scene`);
      await expect.poll(() => page.getByTestId('diagram-list').textContent(), wait).toContain('Pump room');
      await page.getByRole('button', { name: lang === 'en' ? 'View' : '查看' }).click();
      await expect.poll(() => page.getByTestId('value-w1').textContent(), wait).toBe('3.5 MPa');
      await expect.poll(() => page.getByTestId('value-w2').textContent()).toBe('3.5 MPa');
      await page.screenshot({ path: path.join(SHOTS, `diagram-view-${lang}.png`), fullPage: true });

      await page.getByRole('button', { name: lang === 'en' ? 'Back to the list' : '返回列表' }).click();
      await page.getByRole('radio', { name: lang === 'en' ? 'Network topology' : '网络拓扑' }).click();
      await expect.poll(() => page.getByTestId('topology-graph').getAttribute('data-count'), wait).toBe('2');
      await expect.poll(() => page.getByTestId('topology-graph').textContent()).toContain('meter 1 (MTR-1)');
      await page.screenshot({ path: path.join(SHOTS, `topology-${lang}.png`), fullPage: true });
      await page.context().close();
    });
  }

  it('places a lamp in the editor and saves the diagram; the saved widgets come back', async () => {
    const page = await operator('en');
    await page.setViewportSize({ width: 1600, height: 1000 });
    await page.goto(`${sut.base}/operation/scene`);
    await page.getByRole('button', { name: 'Edit', exact: true }).click();
    await page.getByTestId('palette-lamp').click();
    await page.getByTestId('diagram-inspector').getByLabel('Title').fill('Running');
    await page.getByTestId('diagram-inspector').getByRole('combobox', { name: 'Device' }).click();
    await page.getByRole('option', { name: 'pump 1 (PUMP-1)' }).click();
    await page.getByTestId('diagram-inspector').getByRole('combobox', { name: 'Property' }).click();
    await page.getByRole('option', { name: '压力 (pressure)' }).click();
    await page.getByTestId('diagram-save').click();
    await expect.poll(() => page.getByText('Saved').count(), wait).toBeGreaterThan(0);
    await page.screenshot({ path: path.join(SHOTS, 'diagram-edit-en.png'), fullPage: true });
    const api = await httpClientAs(sut.base, 'zuluAdmin', 'Zulu#pw1');
    const saved = await api.call('diagram.detail', { query: { id: diagramId } });
    expect(saved.widgets.map((w) => [w.id, w.kind, w.label, w.deviceId, w.property])).toEqual([
      ['w1', 'value', 'Pressure', devices[0], 'pressure'],
      ['w2', 'gauge', 'Pressure', devices[0], 'pressure'],
      ['lamp1', 'lamp', 'Running', devices[0], 'pressure'],
    ]);
    // Its lamp is lit: the pressure is not zero.
    await page.getByRole('button', { name: 'Back to the list' }).click();
    await page.getByRole('button', { name: 'View' }).click();
    await expect.poll(() => page.getByTestId('lamp-lamp1').getAttribute('data-lit'), wait).toBe('true');
    await page.context().close();
  });

  for (const lang of ['en', 'zh'] as const)
    it(`places a pump bound to a device and a switch that sends a command after the confirm (${lang})`, async () => {
      const en = lang === 'en';
      const api = await httpClientAs(sut.base, 'zuluAdmin', 'Zulu#pw1');
      const { id } = await api.call('diagram.create', { body: { name: `Pumps ${lang}` } });
      const blower = (await api.call('topoElement.create', { body: { name: `Blower ${lang}`, width: 100, height: 70, remark: 'hall 2' } }))
        .id;
      const page = await operator(lang);
      await page.setViewportSize({ width: 1600, height: 1000 });
      await page.goto(`${sut.base}/operation/scene`);
      await page.getByRole('radio', { name: en ? 'Topo elements' : '拓扑元件' }).click();
      await expect.poll(() => page.getByTestId('topo-element-list').textContent(), wait).toContain(`Blower ${lang}`);
      await page.screenshot({ path: path.join(SHOTS, `topo-elements-${lang}.png`), fullPage: true });
      await page.getByRole('radio', { name: en ? 'Diagrams' : '组态图' }).click();
      const row = page.getByRole('row').filter({ hasText: `Pumps ${lang}` });
      await row.getByRole('button', { name: en ? 'Edit' : '编辑', exact: true }).click();
      const inspector = page.getByTestId('diagram-inspector');
      const bind = async (property: string | null) => {
        await inspector.getByRole('combobox', { name: en ? 'Device' : '设备' }).click();
        await page.getByRole('option', { name: 'pump 1 (PUMP-1)' }).click();
        if (property) {
          await inspector.getByRole('combobox', { name: en ? 'Property' : '属性' }).click();
          await page.getByRole('option', { name: property }).click();
        }
      };
      await page.getByTestId('palette-pump').click();
      await bind('压力 (pressure)');
      await page.getByTestId('palette-switch').click();
      await bind('运行 (running)');
      await inspector.getByRole('combobox', { name: en ? 'Command' : '控制指令' }).click();
      await page.getByRole('option', { name: en ? 'Writable property: 运行 (running)' : '可写属性: 运行 (running)' }).click();
      await page.getByTestId(`palette-element-${blower}`).click();
      await page.getByTestId('diagram-save').click();
      await expect.poll(() => page.getByText(en ? 'Saved' : '已保存').count(), wait).toBeGreaterThan(0);
      await page.screenshot({ path: path.join(SHOTS, `diagram-scada-edit-${lang}.png`), fullPage: true });
      const saved = await api.call('diagram.detail', { query: { id } });
      expect(saved.widgets.map((w) => [w.id, w.kind, w.deviceId, w.property, w.command])).toEqual([
        ['pump1', 'pump', devices[0], 'pressure', null],
        ['switch1', 'switch', devices[0], 'running', { kind: 'property', identifier: 'running' }],
        ['element1', 'element', null, null, null],
      ]);
      expect(saved.widgets[2]!.elementId).toBe(blower);

      // The element is placed now: deleting it is refused, naming the diagram.
      await page.getByRole('button', { name: en ? 'Back to the list' : '返回列表' }).click();
      await page.getByRole('radio', { name: en ? 'Topo elements' : '拓扑元件' }).click();
      await page
        .getByRole('row')
        .filter({ hasText: `Blower ${lang}` })
        .getByRole('button', { name: en ? 'Delete' : '删除' })
        .click();
      await page
        .getByRole('alertdialog')
        .getByRole('button', { name: en ? 'OK' : '确定' })
        .click();
      const refused = page.getByText(en ? 'cannot be deleted' : '无法删除');
      await expect.poll(() => refused.count(), wait).toBeGreaterThan(0);
      expect(await refused.first().textContent()).toContain(`Pumps ${lang}`);
      await page.screenshot({ path: path.join(SHOTS, `topo-element-in-use-${lang}.png`), fullPage: true });
      expect((await api.call('topoElement.list', { query: { name: `Blower ${lang}` } })).total).toBe(1);
      await page.getByRole('radio', { name: en ? 'Diagrams' : '组态图' }).click();

      await row.getByRole('button', { name: en ? 'View' : '查看' }).click();
      // The pump runs (its pressure is not zero); the switch is off (no running value yet) until the operator confirms.
      await expect.poll(() => page.getByTestId('pump-pump1').getAttribute('data-on'), wait).toBe('true');
      await expect.poll(() => page.getByTestId('diagram-live').getAttribute('data-socket'), wait).toBe('true');
      await page.getByTestId('switch-switch1').click();
      const dialog = page.getByRole('alertdialog');
      await expect.poll(() => dialog.textContent(), wait).toContain('running = 1');
      await page.screenshot({ path: path.join(SHOTS, `diagram-switch-confirm-${lang}.png`), fullPage: true });
      await dialog.getByRole('button', { name: en ? 'OK' : '确定' }).click();
      await expect.poll(() => page.getByText(en ? 'Command sent' : '指令已下发').count(), wait).toBeGreaterThan(0);
      await page.screenshot({ path: path.join(SHOTS, `diagram-scada-view-${lang}.png`), fullPage: true });
      const commands = await api.call('device.commands', { query: { id: devices[0]! } });
      expect(commands.filter((c) => c.identifier === 'running').map((c) => c.params)).toContainEqual({ value: 1 });
      await page.context().close();
    });

  it('draws every SCADA widget from the bound value: a tank filled to it, a pipe flowing, colours by threshold, lines between', async () => {
    const api = await httpClientAs(sut.base, 'zuluAdmin', 'Zulu#pw1');
    const bound = { deviceId: devices[0], property: 'pressure' };
    const red = [{ value: 3, color: '#E5484D' }];
    const widgets = [
      { id: 'pump', kind: 'pump', x: 0, y: 0, label: 'P-101', ...bound },
      { id: 'valve', kind: 'valve', x: 160, y: 10, label: 'V-1', ...bound },
      { id: 'pipe', kind: 'pipe', x: 300, y: 40, label: 'Main', ...bound },
      { id: 'tank', kind: 'tank', x: 520, y: -20, label: 'T-1', min: 0, max: 10, ...bound },
      { id: 'meter', kind: 'meter', x: 680, y: 0, label: 'PI-1', min: 0, max: 10, thresholds: red, ...bound },
      { id: 'value', kind: 'value', x: 160, y: 160, label: 'Pressure', thresholds: red, ...bound },
      { id: 'text', kind: 'text', x: 380, y: 180, label: 'Pump station 1' },
    ];
    const edges = [
      { id: 'e1', source: 'pump', target: 'valve' },
      { id: 'e2', source: 'valve', target: 'pipe' },
      { id: 'e3', source: 'pipe', target: 'tank' },
    ];
    const { id } = await api.call('diagram.create', { body: { name: 'Station SCADA', widgets, edges } });
    const page = await operator('en');
    await page.setViewportSize({ width: 1600, height: 1000 });
    await page.goto(`${sut.base}/operation/scene`);
    await page.getByRole('row').filter({ hasText: 'Station SCADA' }).getByRole('button', { name: 'View' }).click();
    await expect.poll(() => page.getByTestId('tank-tank').getAttribute('data-level'), wait).toBe('0.35');
    expect(await page.getByTestId('pipe-pipe').getAttribute('data-on')).toBe('true');
    expect(await page.locator('.react-flow__edge').count()).toBe(3);
    expect(await page.locator('.react-flow__edge.animated').count()).toBe(3);
    await page.screenshot({ path: path.join(SHOTS, 'diagram-scada-all-en.png'), fullPage: true });
    expect((await api.call('diagram.detail', { query: { id } })).edges).toEqual(edges);
    await page.context().close();
  });
});
