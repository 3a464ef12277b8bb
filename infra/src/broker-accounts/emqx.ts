import type { BrokerAccounts } from './port.ts';

/**
 * EMQX (5) authenticates devices through the platform's HTTP hooks (infra/src/mqtt/hooks.ts), so it keeps no
 * accounts: what is left to do is cutting a device's open sessions when it loses the right to them, through its
 * REST API (`DELETE /api/v5/clients/{clientid}`, an API key and secret in basic auth). A device's client id is its
 * SN (the authentication hook refuses any other), so the SN names the session to cut.
 */
export interface EmqxAccountsOptions {
  /** `EMQX_API_URL`, e.g. `http://emqx:18083`. */
  apiUrl: string;
  apiKey: string;
  apiSecret: string;
  /** Per call; default 10 s. */
  timeoutMs?: number;
}

export function emqxAccounts(options: EmqxAccountsOptions): BrokerAccounts {
  const base = options.apiUrl.replace(/\/+$/, '');
  const authorization = `Basic ${Buffer.from(`${options.apiKey}:${options.apiSecret}`).toString('base64')}`;
  const call = (method: string, path: string) =>
    fetch(`${base}${path}`, { method, headers: { authorization }, signal: AbortSignal.timeout(options.timeoutMs ?? 10_000) });
  /** Kicks the device's session; not connected (404) is done too. Anything else throws, and the reactor tries again. */
  const cut = async (sn: string) => {
    const answer = await call('DELETE', `/api/v5/clients/${encodeURIComponent(sn)}`);
    await answer.body?.cancel();
    if (answer.status !== 204 && answer.status !== 404) throw new Error(`EMQX did not cut the session of ${sn}: HTTP ${answer.status}`);
  };
  return {
    // The hooks decide who may connect: no account to make, and no secret to hand over.
    provision: async () => {},
    setSecret: async () => {},
    async setEnabled(sns, enabled) {
      if (!enabled) for (const sn of sns) await cut(sn);
    },
    remove: cut,
    rotated: cut,
    async health() {
      try {
        const answer = await call('GET', '/api/v5/status');
        await answer.body?.cancel();
        return { ok: answer.ok, detail: `EMQX API ${answer.status}` };
      } catch (error) {
        return { ok: false, detail: (error as Error).message };
      }
    },
    close: async () => {},
  };
}
