/**
 * EMQX topic rewrite rules (its `rewrite` configuration, README "External MQTT broker") that carry ThingsBoard
 * firmware's `me` uplink onto the device's own topics, which an ingest process subscribes to over an external broker:
 * `v1/devices/me/telemetry` becomes `devices/<client id>/telemetry`. EMQX authorizes before it rewrites: this is safe
 * because the authentication hook lets a device log in over EMQX only with its SN as client id; the username is a
 * ThingsBoard device's access token and never goes into a topic.
 */
export interface EmqxRewriteRule {
  action: 'publish' | 'subscribe' | 'all';
  source_topic: string;
  re: string;
  dest_topic: string;
}

export const thingsboardRewriteRules: readonly EmqxRewriteRule[] = [
  {
    action: 'publish',
    source_topic: 'v1/devices/me/telemetry',
    re: '^v1/devices/me/telemetry$',
    dest_topic: 'devices/${clientid}/telemetry',
  },
  {
    action: 'publish',
    source_topic: 'v1/devices/me/attributes',
    re: '^v1/devices/me/attributes$',
    dest_topic: 'devices/${clientid}/attributes',
  },
];

/** What EMQX makes of a published topic with these rules: the first rule whose filter and expression match rewrites it. */
export function rewriteTopic(rules: readonly EmqxRewriteRule[], topic: string, client: { clientid: string; username?: string }): string {
  for (const rule of rules) {
    if (rule.action === 'subscribe') continue;
    const filter = rule.source_topic.split('/');
    const levels = topic.split('/');
    const matches =
      filter.every((f, i) => f === '#' || (i < levels.length && (f === '+' || f === levels[i]))) &&
      (filter.at(-1) === '#' ? levels.length >= filter.length - 1 : levels.length === filter.length);
    const found = matches ? new RegExp(rule.re).exec(topic) : null;
    if (!found) continue;
    return rule.dest_topic
      .replace(/\$\{clientid\}/g, client.clientid)
      .replace(/\$\{username\}/g, client.username ?? '')
      .replace(/\$(\d)/g, (_, n: string) => found[Number(n)] ?? '');
  }
  return topic;
}
