import type { BrokerAdminPort } from '@iot/contracts/ports/broker-admin.ts';
import type { MqttPort } from '@iot/contracts/ports/mqtt.ts';
import type { MqttClientRow, MqttOverview } from '@iot/contracts';
import type { DeviceRef } from '@iot/contracts/ports/device-directory.ts';
import type { EmbeddedMqtt } from './embedded.ts';

/** How far back the message rate looks, and how fine its buckets are. */
const WINDOW_MS = 60_000;
const BUCKET_MS = 5_000;

export interface BrokerAdminOptions {
  mqtt: MqttPort;
  /** The embedded broker (null over an external one, whose own console lists its clients). */
  embedded: EmbeddedMqtt | null;
  /** The external broker's URL (MQTT_URL); its password is never shown. */
  externalUrl?: string;
  /** The device a session id belongs to (the intake's sessions). */
  deviceOf(clientId: string): DeviceRef | undefined;
  /** The tenant of an MQTT user's session (a third-party client); undefined when the session is none. */
  mqttUserTenant(clientId: string): string | undefined;
  now?: () => number;
}

const withoutPassword = (url: string) => {
  try {
    const u = new URL(url);
    u.password = '';
    u.username = '';
    return u.toString().replace(/\/$/, '');
  } catch {
    return null;
  }
};

/**
 * The MQTT screen's view of the broker (spec §2 system → MQTT): the embedded broker's clients joined with the
 * intake's sessions and the MQTT users' (whose tenant each is), their subscriptions, and per tenant the messages received and their rate
 * over the last minute. A tenant sees its own devices' sessions only; the platform administrator sees all.
 */
export function createBrokerAdmin(options: BrokerAdminOptions): BrokerAdminPort & { stop(): void } {
  const { embedded } = options;
  const now = options.now ?? Date.now;
  const startedAt = now();
  /** Per connection (client id and when it connected), the messages already counted. */
  let seen = new Map<string, number>();
  /** Per tenant, messages since the broker started. */
  const totals = new Map<string, number>();
  const buckets: Array<{ at: number; counts: Map<string, number> }> = [];
  const tenantKey = (clientId: string) => options.deviceOf(clientId)?.tenantId ?? options.mqttUserTenant(clientId) ?? null;

  /** Folds the messages clients published since the last look into the totals and the current bucket. */
  const sample = () => {
    if (!embedded) return;
    const at = now();
    const next = new Map<string, number>();
    let bucket = buckets.at(-1);
    if (!bucket || at - bucket.at >= BUCKET_MS) buckets.push((bucket = { at, counts: new Map() }));
    while (buckets.length > 0 && at - buckets[0]!.at > WINDOW_MS) buckets.shift();
    for (const client of embedded.inspect()) {
      const key = `${client.clientId}@${client.connectedAt.getTime()}`;
      next.set(key, client.messagesIn);
      const delta = client.messagesIn - (seen.get(key) ?? 0);
      const tenant = tenantKey(client.clientId);
      if (delta <= 0 || tenant === null) continue;
      totals.set(tenant, (totals.get(tenant) ?? 0) + delta);
      bucket.counts.set(tenant, (bucket.counts.get(tenant) ?? 0) + delta);
    }
    seen = next;
  };
  const sampler = embedded ? setInterval(sample, BUCKET_MS) : null;
  sampler?.unref();

  const inScope = (tenantId: string | null, tenant: string) => tenantId === null || tenant === tenantId;

  return {
    async overview({ tenantId, keyword }): Promise<MqttOverview> {
      const healthy = (await options.mqtt.health().catch(() => ({ ok: false }))).ok;
      if (!embedded)
        return {
          mode: 'external',
          address: options.externalUrl ? withoutPassword(options.externalUrl) : null,
          healthy,
          listsClients: false,
          clients: [],
          byTenant: [],
          rates: { messagesIn: 0, perSecond: 0, windowSeconds: 0 },
        };
      sample();
      const word = keyword?.toLowerCase();
      const clients: MqttClientRow[] = [];
      for (const client of embedded.inspect()) {
        const device = options.deviceOf(client.clientId);
        const tenant = device?.tenantId ?? options.mqttUserTenant(client.clientId);
        if (tenant === undefined || !inScope(tenantId, tenant)) continue;
        const row: MqttClientRow = {
          clientId: client.clientId,
          kind: device ? 'device' : 'mqttUser',
          tenantId: tenant,
          deviceId: device?.deviceId ?? null,
          sn: device?.sn ?? null,
          name: device?.name ?? null,
          username: client.username,
          address: client.address,
          connectedAt: client.connectedAt.toISOString(),
          messagesIn: client.messagesIn,
          subscriptions: client.subscriptions,
        };
        if (word && ![row.clientId, row.sn, row.name, row.username].some((s) => s?.toLowerCase().includes(word))) continue;
        clients.push(row);
      }
      clients.sort((a, b) => a.tenantId.localeCompare(b.tenantId) || a.clientId.localeCompare(b.clientId));
      const byTenant = new Map<string, number>();
      for (const c of clients) byTenant.set(c.tenantId, (byTenant.get(c.tenantId) ?? 0) + 1);
      let messagesIn = 0;
      for (const [tenant, count] of totals) if (inScope(tenantId, tenant)) messagesIn += count;
      let recent = 0;
      for (const bucket of buckets) for (const [tenant, count] of bucket.counts) if (inScope(tenantId, tenant)) recent += count;
      const windowSeconds = Math.max(1, Math.round(Math.min(WINDOW_MS, now() - startedAt) / 1000));
      return {
        mode: 'embedded',
        address: embedded.url,
        healthy,
        listsClients: true,
        clients,
        byTenant: [...byTenant].map(([tenant, count]) => ({ tenantId: tenant, clients: count })),
        rates: { messagesIn, perSecond: Math.round((recent / windowSeconds) * 100) / 100, windowSeconds },
      };
    },

    async disconnect({ tenantId }, clientId) {
      if (!embedded) return false;
      const tenant = options.deviceOf(clientId)?.tenantId ?? options.mqttUserTenant(clientId);
      if (tenant === undefined || !inScope(tenantId, tenant)) return false;
      return (await embedded.disconnect?.(clientId)) ?? false;
    },

    stop() {
      if (sampler) clearInterval(sampler);
    },
  };
}
