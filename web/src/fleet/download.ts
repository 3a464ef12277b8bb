import i18n, { langOf } from '../i18n/index.ts';
import { session } from '../api/session.ts';
import { ApiError, fileUrl, type FileQuery, type FileRoute } from '../api/client.ts';
import { saveBlob } from '../ui/exportRows.ts';

/** The caller's credentials for a file download, which the browser saves instead of the client reading it. */
function authHeaders(): Record<string, string> {
  const token = session.token();
  return { systemid: 'iot', lang: langOf(i18n.language), ...(token ? { Authentication: token } : {}) };
}

/** Downloads a file route's answer (spec §7 "blob downloads"), refusing with the server's message. */
export async function downloadRoute<N extends FileRoute>(name: N, query: FileQuery<N>, filename: string): Promise<void> {
  const response = await fetch(fileUrl(name, query), { headers: authHeaders(), credentials: 'same-origin' });
  if (!response.ok) {
    const body = (await response.json().catch(() => ({}))) as { msg?: string; data?: { error?: string } };
    throw new ApiError(response.status, body.data?.error ?? 'HTTP', body.msg ?? i18n.t('error.requestFailed'));
  }
  saveBlob(await response.blob(), filename);
}
