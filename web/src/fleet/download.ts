import i18n from '../i18n/index.ts';
import { session } from '../api/session.ts';
import { ApiError } from '../api/client.ts';
import { saveBlob } from '../ui/exportRows.ts';

/** The caller's credentials for requests the typed client cannot make (files up and down). */
export function authHeaders(extra: Record<string, string> = {}): Record<string, string> {
  const token = session.token();
  return { systemid: 'iot', lang: i18n.language === 'en' ? 'en' : 'zh', ...(token ? { Authentication: token } : {}), ...extra };
}

/** Downloads a file route's answer (spec §7 "blob downloads"), refusing with the server's message. */
export async function downloadRoute(path: string, query: Record<string, string | number | undefined>, filename: string): Promise<void> {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== '') params.set(k, String(v));
  params.set('timestamp', String(Date.now()));
  const response = await fetch(`${path}?${params}`, { headers: authHeaders(), credentials: 'same-origin' });
  if (!response.ok) {
    const body = (await response.json().catch(() => ({}))) as { msg?: string; data?: { error?: string } };
    throw new ApiError(response.status, body.data?.error ?? 'HTTP', body.msg ?? i18n.t('error.requestFailed'));
  }
  saveBlob(await response.blob(), filename);
}
