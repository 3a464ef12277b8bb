import { z } from 'zod';
import { listQuery, page } from '../envelope.ts';
import { route } from '../http/route.ts';
import { idBody } from '../identity/common.ts';
import { authorityFileUploadFields, fileFilters, fileRow, fileSortable, fileUploadFields, fileUsage } from './model.ts';
import { filePerm as p } from './permissions.ts';

const tag = 'file';

/** File management (spec §3 Uploaded file, §7 IoT `file` upload/list/delete/download, §9 file types). */
export const fileRoutes = {
  'file.list': route({
    method: 'GET',
    path: '/api/iot/file',
    permission: p.list,
    tag,
    summary: 'Uploaded files of the tenant, filtered by name, type, extension type and uploader',
    query: listQuery(fileSortable, fileFilters),
    response: page(fileRow),
    reads: ['files'],
  }),
  'file.detail': route({
    method: 'GET',
    path: '/api/iot/file/detail',
    permission: p.list,
    tag,
    summary: 'One uploaded file',
    query: idBody,
    response: fileRow,
    reads: ['files'],
    errors: ['NOT_FOUND'],
  }),
  'file.usage': route({
    method: 'GET',
    path: '/api/iot/file/usage',
    permission: p.list,
    tag,
    summary: "The tenant's stored bytes against its quota, and the largest file one upload may send",
    response: fileUsage,
    reads: ['files'],
  }),
  'file.upload': route({
    method: 'POST',
    path: '/api/iot/file/upload',
    permission: p.upload,
    tag,
    summary:
      'Resumable upload (tus 1.0.0: POST creates, HEAD tells the offset, PATCH sends bytes from it). Upload-Metadata carries name, fileType, extensionType, version and declaration (checked first); Upload-Length is required and refused past the size limit (FILE_UPLOAD_TOO_LARGE) or the tenant’s quota (FILE_QUOTA_EXCEEDED) before any byte is stored. The last PATCH records the file with the SHA-256 of the whole',
    body: fileUploadFields,
    consumes: 'tus',
    response: z.object({ id: z.string() }),
    reads: ['files'],
    errors: ['FILE_UPLOAD_TOO_LARGE', 'FILE_QUOTA_EXCEEDED', 'NOT_FOUND'],
  }),
  'file.download': route({
    method: 'GET',
    path: '/api/iot/file/download',
    permission: p.download,
    tag,
    summary: 'The file’s bytes; a Range header gets 206 with Content-Range, a range past the end 416',
    query: idBody,
    response: z.unknown(),
    produces: 'application/octet-stream',
    reads: ['files'],
    errors: ['NOT_FOUND', 'RANGE_NOT_SATISFIABLE'],
  }),
  'file.delete': route({
    method: 'DELETE',
    path: '/api/iot/file',
    permission: p.delete,
    tag,
    summary: 'Delete a file (after a confirm on the screen); refused while a running upgrade or configuration task sends it',
    query: idBody,
    response: z.object({ id: z.string() }),
    reads: ['files'],
    errors: ['NOT_FOUND', 'FILE_IN_USE'],
  }),
  // The authority service's own (spec §7 `file/upload`, `file/download`): common files and logos of any logged-in user.
  'authFile.upload': route({
    method: 'POST',
    path: '/api/auth/file/upload',
    permission: 'authenticated',
    tag: 'auth',
    summary:
      'The authority service’s upload of a common file or a logo (tus 1.0.0 like the IoT upload: POST creates, HEAD tells the offset, PATCH sends bytes). Upload-Metadata carries name, fileType (common or logo, default common) and declaration; size and quota are checked before a byte is stored',
    body: authorityFileUploadFields,
    consumes: 'tus',
    response: z.object({ id: z.string() }),
    reads: ['files'],
    errors: ['FILE_UPLOAD_TOO_LARGE', 'FILE_QUOTA_EXCEEDED', 'NOT_FOUND'],
  }),
  'authFile.download': route({
    method: 'GET',
    path: '/api/auth/file/download',
    permission: 'authenticated',
    tag: 'auth',
    summary:
      'The authority service’s download: a common file or a logo of the caller’s tenant (other files through the IoT download and its permission); Range gets 206',
    query: idBody,
    response: z.unknown(),
    produces: 'application/octet-stream',
    reads: ['files'],
    errors: ['NOT_FOUND', 'RANGE_NOT_SATISFIABLE'],
  }),
};
export type FileRoutes = typeof fileRoutes;
