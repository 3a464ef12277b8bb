import { connectAsync, type MqttClient } from 'mqtt';

/** How a simulated device behaves when offered a rollout. */
export type Script = 'ok' | 'fail' | 'offline' | 'hold';

/**
 * A fleet of simulated MQTT devices speaking the native OTA topics: each takes its offer (`devices/{sn}/command/ota-*`)
 * and reports progress on `devices/{sn}/ota/{taskId}/progress` as its script says. `offline` drops its connection
 * mid-download once; `hold` downloads and waits for `release`.
 */
export function createFleet(url: string) {
  const clients = new Map<string, MqttClient>();
  const scripts = new Map<string, Script>();
  const offers = new Map<string, number>();
  const held = new Map<string, () => void>();
  /** Each device's last offer's download link, and the devices whose `done` the platform acknowledged. */
  const links = new Map<string, string | null>();
  const done = new Set<string>();
  const secrets = new Map<string, string>();

  const report = (client: MqttClient, sn: string, taskId: string, body: object) =>
    client.publishAsync(`devices/${sn}/ota/${taskId}/progress`, JSON.stringify(body), { qos: 1 });

  async function onOffer(sn: string, client: MqttClient, taskId: string) {
    offers.set(sn, (offers.get(sn) ?? 0) + 1);
    const script = scripts.get(sn) ?? 'ok';
    await report(client, sn, taskId, { status: 'downloading', percent: 10 });
    if (script === 'offline') {
      scripts.set(sn, 'ok');
      client.end(true);
      clients.delete(sn);
      return;
    }
    if (script === 'fail') return void (await report(client, sn, taskId, { status: 'failed', reason: 'checksum mismatch' }));
    if (script === 'hold') {
      scripts.set(sn, 'ok');
      await report(client, sn, taskId, { status: 'downloading', percent: 40 });
      await new Promise<void>((resolve) => held.set(sn, resolve));
      client = clients.get(sn)!;
    }
    await report(client, sn, taskId, { status: 'downloading', percent: 100 });
    await report(client, sn, taskId, { status: 'verifying' });
    await report(client, sn, taskId, { status: 'installing', percent: 50 });
    await report(client, sn, taskId, { status: 'done', version: '2.0' });
    done.add(sn);
  }

  async function connect(sn: string) {
    clients.get(sn)?.end(true);
    const client = await connectAsync(url, { username: sn, password: secrets.get(sn)!, clientId: sn, reconnectPeriod: 0 });
    client.on('error', () => {});
    client.on('message', (topic, payload) => {
      if (!topic.startsWith(`devices/${sn}/command/ota-`)) return;
      const offer = JSON.parse(payload.toString()) as { identifier: string; params: { taskId: string; url: string | null } };
      if (offer.identifier === 'ota') links.set(sn, offer.params.url);
      if (offer.identifier === 'ota') void onOffer(sn, client, offer.params.taskId).catch(() => {});
    });
    await client.subscribeAsync(`devices/${sn}/command/#`, { qos: 1 });
    clients.set(sn, client);
    return client;
  }

  return {
    scripts,
    offers,
    links,
    done,
    add(sn: string, secret: string, script: Script = 'ok') {
      secrets.set(sn, secret);
      scripts.set(sn, script);
    },
    connect,
    online: (sn: string) => clients.has(sn),
    held: (sn: string) => held.has(sn),
    /** A held device goes on (on its current connection, which a restart may have replaced). */
    release(sn: string) {
      held.get(sn)?.();
      held.delete(sn);
    },
    async closeAll() {
      await Promise.all([...clients.values()].map((c) => c.endAsync(true)));
      clients.clear();
    },
  };
}
export type Fleet = ReturnType<typeof createFleet>;
