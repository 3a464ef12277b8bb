import { DomainError, errorCatalogue, type ErrorCode } from '@iot/contracts';

/** One result per item of a bulk action: a refusal of one never stops the others. */
export async function perItem(ids: string[], act: (id: string) => Promise<unknown>, lang: 'zh' | 'en') {
  const results = [];
  for (const id of [...new Set(ids)]) {
    try {
      await act(id);
      results.push({ id, ok: true, code: null, msg: null });
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      results.push({ id, ok: false, code: error.code, msg: errorCatalogue[error.code as ErrorCode][lang] });
    }
  }
  const ok = results.filter((r) => r.ok).length;
  return { ok, failed: results.length - ok, results };
}

/** A bulk action of which no item exists in the caller's tenant answers NOT_FOUND, as a single-item route would. */
export async function perItemFound(ids: string[], act: (id: string) => Promise<unknown>, lang: 'zh' | 'en') {
  const answer = await perItem(ids, act, lang);
  if (answer.ok === 0 && answer.results.every((r) => r.code === 'NOT_FOUND')) throw new DomainError('NOT_FOUND');
  return answer;
}
