import type { Sql } from '@iot/contracts/ports/sql.ts';
import { otaTaskSendsFile } from '../ota/read.ts';

/** Whether a running task of the tenant sends the file (a task's read module answers for its own tasks). */
export type FileUseCheck = (db: Sql, tenantId: string, fileId: string) => Promise<boolean>;

/**
 * The read modules of the tasks that send files: a file is in use while any of them says a running task
 * (state executing or pause, spec §4, or not yet started) sends it: OTA and configuration rollouts (issue 21).
 */
export const fileUseChecks: readonly FileUseCheck[] = [otaTaskSendsFile];

/** Whether a running task uses the file: a file in use cannot be deleted. */
export async function fileInUse(db: Sql, tenantId: string, fileId: string): Promise<boolean> {
  for (const check of fileUseChecks) if (await check(db, tenantId, fileId)) return true;
  return false;
}
