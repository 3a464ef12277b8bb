import type { FileExtensionType, FileType, fileSortable, Page, PageQuery, StoredFile } from '@iot/contracts';
import type { Sql } from '@iot/contracts/ports/sql.ts';
import { pageRows, param, type ListSpec } from '../shared/page.ts';

/** An uploaded file as the files projection keeps it (rm_files). */
export type FileRecord = { [K in keyof StoredFile]: StoredFile[K] } & {
  declaration: string | null;
  uploaderId: string;
  uploader: string;
  createdAt: Date;
};

const FILE = `id, tenant_id as "tenantId", name, size::float8 as size, sha256, file_type as "fileType",
  extension_type as "extensionType", version, declaration, storage_key as "storageKey", uploader_id as "uploaderId",
  uploader, created_at as "createdAt"`;

/** A file of a tenant, by id: never another tenant's. */
export async function fileById(db: Sql, tenantId: string, id: string): Promise<FileRecord | null> {
  return (await db.query<FileRecord>(`select ${FILE} from rm_files where id = $1 and tenant_id = $2`, [id, tenantId])).rows[0] ?? null;
}

/** The bytes a tenant's files take. */
export async function fileBytesOfTenant(db: Sql, tenantId: string): Promise<number> {
  const row = (
    await db.query<{ bytes: number }>('select coalesce(sum(size), 0)::float8 as bytes from rm_files where tenant_id = $1', [tenantId])
  ).rows[0];
  return row?.bytes ?? 0;
}

export interface FileFilter {
  /** A part of the name, any case. */
  name?: string;
  fileType?: FileType;
  extensionType?: FileExtensionType;
  /** A part of the uploader's name, any case. */
  uploader?: string;
}
const sortBy = { createTime: 'created_at', name: 'lower(name)', size: 'size' } satisfies Record<(typeof fileSortable)[number], string>;

/** A page of a tenant's files, newest first unless told. */
export async function filesPage(db: Sql, tenantId: string, filter: FileFilter, page: PageQuery): Promise<Page<FileRecord>> {
  const spec: ListSpec = {
    select: FILE,
    from: 'rm_files',
    where: ['tenant_id = $1'],
    params: [tenantId],
    sortable: sortBy,
    defaultSort: 'created_at',
  };
  const { where, params } = spec;
  if (filter.name) where.push(`name ilike ${param(params, `%${escapeLike(filter.name)}%`)}`);
  if (filter.fileType) where.push(`file_type = ${param(params, filter.fileType)}`);
  if (filter.extensionType) where.push(`extension_type = ${param(params, filter.extensionType)}`);
  if (filter.uploader) where.push(`uploader ilike ${param(params, `%${escapeLike(filter.uploader)}%`)}`);
  return pageRows<FileRecord>(db, page, spec);
}

const escapeLike = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);
