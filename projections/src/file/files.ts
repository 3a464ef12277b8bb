import type { FileEvent } from '@iot/contracts';
import { projection } from '../projection.ts';

/** Uploaded files of each tenant, as file management lists them and rollouts pick them. */
export const filesProjection = projection<FileEvent>({
  name: 'files',
  handles: ['FileUploaded', 'FileDeleted'],
  tables: ['rm_files'],
  schema: `
    create table rm_files (
      id text primary key,
      tenant_id text not null,
      name text not null,
      size bigint not null,
      sha256 text not null,
      file_type text not null,
      extension_type text,
      version text,
      declaration text,
      storage_key text not null,
      uploader_id text not null,
      uploader text not null,
      created_at timestamptz not null
    );
    create index rm_files_tenant on rm_files (tenant_id, created_at desc);`,
  async apply(tx, event) {
    switch (event.type) {
      case 'FileUploaded': {
        const d = event.data;
        await tx.query(
          `insert into rm_files (id, tenant_id, name, size, sha256, file_type, extension_type, version, declaration, storage_key,
             uploader_id, uploader, created_at)
           values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13) on conflict (id) do nothing`,
          [
            d.fileId,
            event.metadata.tenantId,
            d.name,
            d.size,
            d.sha256,
            d.fileType,
            d.extensionType,
            d.version,
            d.declaration,
            d.storageKey,
            d.uploaderId,
            d.uploader,
            event.metadata.occurredAt,
          ],
        );
        return;
      }
      case 'FileDeleted':
        await tx.query('delete from rm_files where id = $1', [event.data.fileId]);
        return;
    }
  },
});
