import { alarmRuleFields, type Routes } from '@iot/contracts';
import { handleCommand, newAggregateId } from '@iot/command/handler.ts';
import { alarmRuleDecider, alarmRuleStream } from '@iot/command/alarm/rule.ts';
import type { DeviceRef } from '@iot/ingest/registry.ts';
import { seedDemoTenant } from '@iot/infra/platform.ts';
import type { RouteArgs, RouteName } from '../harness/api.ts';
import { fetchClient } from '../harness/fetch-client.ts';
import { waitFor } from '../harness/process.ts';
import type { Figure } from './figure.ts';
import { startBenchPlatform } from './bare.ts';

const DEVICES = 10_000;
const TENANT = 'alarmbench';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;

/**
 * `alarm-overhead`, `alarm-latency` and `alarm-storm` (issue 12), on one platform with its embedded engines and
 * 10,000 devices. Samples enter through the intake as the HTTP ingest route hands them over (validation against
 * the thing model, chDB insert through the group-commit batcher, then the reactors), not over MQTT: the
 * evaluator's cost is what is measured, and a 10,000-client MQTT generator would take the two cores itself.
 */
export async function benchAlarms(): Promise<Figure[]> {
  const seconds = Number(process.env.BENCH_SECONDS ?? 10);
  const bench = await startBenchPlatform('alarm', {
    // High enough for the latency run's crossings (one inbox record each), low enough to cap the storm.
    NOTIFY_TENANT_PER_MIN: '400',
    NOTIFY_CONTACT_PER_MIN: '300',
  });
  const { platform } = bench;
  const figures: Figure[] = [];
  try {
    const { db, store } = platform.context;
    await seedDemoTenant(platform.context, { id: TENANT, name: 'alarmbenchco', adminUsername: 'alarmbench', adminPassword: 'Bench#pw1' });
    const api = fetchClient(platform.url!.replace('localhost', '127.0.0.1'));
    const { token } = await api.data('auth.login', { body: { account: 'alarmbench', password: 'Bench#pw1', agreement: true } });
    const call = <N extends RouteName>(name: N, args: Omit<RouteArgs<Routes[N]>, 'token'>) => api.data(name, { ...args, token });
    const temperature = { type: 'property', name: 'temperature', identifier: 'temperature', dataType: { type: 'double' } };
    const product = await call('product.create', { body: { name: 'alarm bench', code: 'ALARM-BENCH', type: 'direct' } });
    await call('product.defineFunction', { body: { productId: product.id, function: temperature } });
    await call('product.publish', { body: { id: product.id } });
    // A second product with the same thing model and no rules: the devices the limit is measured on.
    const plain = await call('product.create', { body: { name: 'no rules', code: 'NORULE-BENCH', type: 'direct' } });
    await call('product.defineFunction', { body: { productId: plain.id, function: temperature } });
    await call('product.publish', { body: { id: plain.id } });
    const csv = [
      'sn,name,product',
      ...Array.from({ length: DEVICES }, (_, i) => `AB-${i},bench ${i},ALARM-BENCH`),
      ...Array.from({ length: DEVICES }, (_, i) => `NR-${i},plain ${i},NORULE-BENCH`),
    ].join('\n');
    await call('device.import', {
      body: Buffer.from(csv),
      query: { jobId: 'alarm-bench', filename: 'devices.csv' },
      headers: { 'content-type': 'text/csv' },
    });
    await platform.runner.catchUp();
    const devices = (
      await db.query<DeviceRef>(
        `select id as "deviceId", tenant_id as "tenantId", sn, name, product_id as "productId", model_version as "modelVersion",
           node_type as "nodeType", gateway_id as "gatewayId", group_id as "groupId" from rm_devices where tenant_id = $1 and sn like 'AB-%' order by sn`,
        [TENANT],
      )
    ).rows;
    const plainDevices = (
      await db.query<DeviceRef>(
        `select id as "deviceId", tenant_id as "tenantId", sn, name, product_id as "productId", model_version as "modelVersion",
           node_type as "nodeType", gateway_id as "gatewayId", group_id as "groupId" from rm_devices where tenant_id = $1 and sn like 'NR-%' order by sn`,
        [TENANT],
      )
    ).rows;
    if (devices.length !== DEVICES) throw new Error(`${devices.length} devices imported`);
    const intake = platform.ingest!.intake;

    /** Waits until `done` answers true, at most `ms`; false when it never did. */
    const until = (done: () => Promise<boolean>, ms: number): Promise<boolean> =>
      waitFor('the condition', done, ms, 2).then(
        () => true,
        () => false,
      );

    /** Offers samples from `workers` concurrent senders for `ms`, round-robin over the devices; answers dp/s. */
    const offer = async (ms: number, value: () => number, fleet = devices, workers = 512) => {
      let sent = 0;
      const until = performance.now() + ms;
      const started = performance.now();
      await Promise.all(
        Array.from({ length: workers }, async (_, w) => {
          for (let i = w; performance.now() < until; i += workers) {
            await intake.handleHttp(fleet[i % fleet.length]!, { temperature: value() });
            sent++;
          }
        }),
      );
      return sent / ((performance.now() - started) / 1000);
    };

    // ---------------------------------------------------------------- alarm-overhead
    const rssBefore = process.memoryUsage().rss;
    const seed = { tenantId: TENANT, actor: { kind: 'system' as const, id: 'bench' } };
    for (let i = 0; i < DEVICES; i += 200)
      await Promise.all(
        devices.slice(i, i + 200).map((d) => {
          const id = newAggregateId({ tenantId: TENANT, idempotencyKey: `rule:${d.deviceId}` });
          const fields = alarmRuleFields.parse({
            name: `hot ${d.sn}`,
            productId: product.id,
            deviceId: d.deviceId,
            variable: 'temperature',
            type: 'cloud',
            mode: 'crossUpper',
            threshold: 1000,
            level: 3,
          });
          return handleCommand(store, alarmRuleDecider, alarmRuleStream(TENANT, id), { type: 'Create', id, fields }, seed);
        }),
      );
    await platform.runner.catchUp();
    await platform.alarms!.load();
    // Interleaved, so that chDB's background merges and the machine's noise fall on both alike.
    await offer(2_000, () => 20, plainDevices);
    await offer(2_000, () => 20, devices);
    let without = 0;
    let withRules = 0;
    for (let round = 0; round < 2; round++) {
      without += await offer((seconds * 1000) / 2, () => 20 + Math.random(), plainDevices);
      withRules += await offer((seconds * 1000) / 2, () => 20 + Math.random(), devices);
    }
    const size = platform.alarms!.size();
    figures.push({
      bench: 'alarm-overhead',
      value: Math.round(withRules),
      unit: 'dp/s',
      limit: Math.round(without),
      limit_of: 'the same ingest, same run, interleaved, to 10,000 devices of a product with no rules',
      ratio: Number((withRules / without).toFixed(3)),
      goal_ratio: 0.85,
      rule_states: size.states,
      rules: size.rules,
      rss_growth_mb: Math.round((process.memoryUsage().rss - rssBefore) / 2 ** 20),
    });

    // ---------------------------------------------------------------- alarm-latency
    // A contact and an in-app configuration, so that each alarm also reaches the inbox.
    const contact = await call('contact.create', { body: { name: 'bench', email: 'bench@example.com' } });
    const template = await call('notifyTemplate.create', {
      body: { code: 'B', name: 'b', type: 'email', content: '{{device}} {{value}}' },
    });
    await platform.runner.catchUp();
    await call('notifyConfig.create', {
      body: { name: 'bench', source: 'alarm', type: 'email', templateId: template.id, sendWays: ['inApp'], contactIds: [contact.id] },
    });
    await platform.runner.catchUp();
    const background = { stop: false, sent: 0 };
    // About 10,000 dp/s from the other 9,999 devices while the crossings happen.
    const load = (async () => {
      const started = performance.now();
      while (!background.stop) {
        const due = Math.floor(((performance.now() - started) / 1000) * 10_000) - background.sent;
        const batch = Array.from({ length: Math.min(due, 500) }, (_, k) => devices[1 + ((background.sent + k) % (DEVICES - 1))]!);
        await Promise.all(batch.map((d) => intake.handleHttp(d, { temperature: 20 })));
        background.sent += batch.length;
        if (batch.length === 0) await sleep(5);
      }
      return background.sent / ((performance.now() - started) / 1000);
    })();
    const target = devices[0]!;
    const toEvent: number[] = [];
    const toInbox: number[] = [];
    const crossings = Number(process.env.BENCH_CROSSINGS ?? 200);
    const deadline = performance.now() + 120_000;
    try {
      for (let c = 0; c < crossings && performance.now() < deadline; c++) {
        const t0 = performance.now();
        void intake.handleHttp(target, { temperature: 2000 + c });
        let raised: string | null = null;
        const seen = await until(async () => {
          const row = await db.query<{ id: string }>(
            `select data->>'alarmId' as id from es_events where type = 'AlarmRaised' and data->>'deviceId' = $1 and (data->>'value')::float = $2`,
            [target.deviceId, 2000 + c],
          );
          raised = row.rows[0]?.id ?? null;
          return raised !== null;
        }, 10_000);
        if (!seen || !raised) throw new Error(`crossing ${c}: no AlarmRaised within 10 s`);
        toEvent.push(performance.now() - t0);
        const alarmId: string = raised;
        const filed = await until(
          async () =>
            (await db.query(`select 1 from notify_records where alarm_id = $1 and send_way = 'inApp' and status = 'sent'`, [alarmId]))
              .rowCount > 0,
          10_000,
        );
        if (!filed) throw new Error(`crossing ${c}: no in-app notification within 10 s`);
        toInbox.push(performance.now() - t0);
        // Back under the threshold: the alarm clears, and the next crossing raises a new one.
        await intake.handleHttp(target, { temperature: 20 });
        if (!(await until(async () => (await db.query(`select 1 from claims where owner = $1`, [alarmId])).rowCount === 0, 10_000)))
          throw new Error(`crossing ${c}: not cleared within 10 s`);
      }
    } finally {
      background.stop = true;
      await load.catch(() => 0);
    }
    const backgroundRate = await load;
    const ev = [...toEvent].sort((a, b) => a - b);
    const inbox = [...toInbox].sort((a, b) => a - b);
    figures.push({
      bench: 'alarm-latency',
      value: Math.round(percentile(ev, 99)),
      unit: 'ms (p99 publish to AlarmRaised)',
      limit: 500,
      limit_of: 'goal p99',
      p50_ms: Math.round(percentile(ev, 50)),
      inbox_p50_ms: Math.round(percentile(inbox, 50)),
      inbox_p99_ms: Math.round(percentile(inbox, 99)),
      crossings: ev.length,
      background_dp_s: Math.round(backgroundRate),
    });

    // Each figure is printed as soon as it is measured, so that a later failure keeps it.
    for (const f of figures) process.stderr.write(`${JSON.stringify(f)}\n`);

    // ---------------------------------------------------------------- alarm-storm
    // The storm starts with fresh caps (the latency run's notifications are counted in its minutes).
    await db.query('delete from notify_records');
    await db.query('delete from notify_rate');
    const rss0 = process.memoryUsage().rss;
    let peak = rss0;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 50);
    // Recorded means the AlarmRaised event is in the log (a claim alone is taken before the append).
    const raisedEvents = async () =>
      (
        await db.query<{ n: number }>(`select count(*)::int as n from es_events where type = 'AlarmRaised' and stream_name like $1`, [
          `alarm-${TENANT}.%`,
        ])
      ).rows[0]!.n;
    const raisedBefore = await raisedEvents();
    const t0 = performance.now();
    // Every device crosses within one second.
    await Promise.all(
      Array.from({ length: 1000 }, async (_, w) => {
        for (let i = w; i < DEVICES; i += 1000) await intake.handleHttp(devices[i]!, { temperature: 5000 });
      }),
    );
    const offered = (performance.now() - t0) / 1000;
    // Device 0 may still hold its alarm from the latency run: 9,999 or 10,000 new ones.
    await until(async () => (await raisedEvents()) - raisedBefore >= DEVICES - 1, 300_000);
    const recordedSeconds = (performance.now() - t0) / 1000;
    // The read models and the notification reactor then work through 10,000 alarms: how long is reported too.
    await platform.runner.catchUp(600_000);
    const projectedSeconds = (performance.now() - t0) / 1000;
    await platform.delivery!.drain();
    clearInterval(sampler);
    const raisedTotal = (await raisedEvents()) - raisedBefore;
    const notifications = (await db.query<{ n: number }>(`select count(*)::int as n from notify_records where status = 'sent'`)).rows[0]!.n;
    const heldBack = (
      await db.query<{ n: number }>(`select coalesce(sum(suppressed), 0)::int as n from notify_storm where tenant_id = $1`, [TENANT])
    ).rows[0]!.n;
    figures.push({
      bench: 'alarm-storm',
      value: Number(recordedSeconds.toFixed(2)),
      unit: 's until every alarm is recorded',
      limit: 10,
      limit_of: 'goal',
      offered_in_s: Number(offered.toFixed(2)),
      read_models_caught_up_in_s: Number(projectedSeconds.toFixed(1)),
      alarms_recorded: raisedTotal,
      notifications_sent: notifications,
      notifications_held_back_for_one_summary: heldBack,
      peak_rss_growth_mb: Math.round((peak - rss0) / 2 ** 20),
      peak_rss_mb: Math.round(peak / 2 ** 20),
    });
  } finally {
    await bench.stop();
  }
  return figures;
}
