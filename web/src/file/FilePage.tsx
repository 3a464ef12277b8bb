import './i18n.ts';
import { useCallback, useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Badge, Box, Button, Callout, Dialog, Flex, Progress, Text, TextField } from '@radix-ui/themes';
import { UploadIcon } from '@radix-ui/react-icons';
import { useQuery } from '@tanstack/react-query';
import { Upload, type DetailedError } from 'tus-js-client';
import { routes } from '@iot/contracts';
import { fileTypes } from '@iot/contracts/constants.ts';
import { fileExtensionTypes, sizeInMb } from '@iot/contracts/file/model.ts';
import { filePerm } from '@iot/contracts/file/permissions.ts';
import i18n, { langOf } from '../i18n/index.ts';
import { callRoute, messageOf } from '../api/client.ts';
import { session } from '../api/session.ts';
import { downloadRoute } from '../fleet/download.ts';
import { deleteQuestion, labelled, PermittedRowButton, useListDelete } from '../ui/crud.tsx';
import { notice } from '../ui/feedback.tsx';
import { Field } from '../ui/form.tsx';
import { formatDate } from '../ui/format.ts';
import { ListPage, useRefresh, type ListColumn } from '../ui/ListPage.tsx';
import { SelectInput } from '../ui/widgets.tsx';

type FileRow = Awaited<ReturnType<typeof callRoute<'file.list'>>>['rows'][number];
const FILES = 'files';
const UPLOAD_PATH = routes['file.upload'].path;
/** Pieces of a resumable upload: what a reload or a lost network costs at most. */
const CHUNK_BYTES = 5 * 1024 * 1024;
/** The select's value for "none" (a select item cannot be empty). */
const NONE = '-';

/** The caller's headers on every tus request: the same session and language as the API client's. */
function tusHeaders(): Record<string, string> {
  const token = session.token();
  return { systemid: 'iot', lang: langOf(i18n.language), ...(token ? { Authentication: token } : {}) };
}

/** The platform's message in a refused tus request (its envelope), else a generic one. */
function tusMessage(error: Error | DetailedError): string {
  const body = 'originalResponse' in error ? error.originalResponse?.getBody() : undefined;
  try {
    const parsed = body ? (JSON.parse(body) as { msg?: string }) : null;
    if (parsed?.msg) return parsed.msg;
  } catch {
    // not the envelope
  }
  return messageOf(error);
}

interface Pending {
  key: string;
  uploadUrl: string;
  name: string;
  size: number;
  /** Bytes the server holds (HEAD), null while asked. */
  offset: number | null;
}

/** What tus-js-client keeps in localStorage of an unfinished upload: `tus::<fingerprint>::<id>` → this, as JSON. */
interface StoredUpload {
  urlStorageKey: string;
  uploadUrl: string | null;
  size: number | null;
  metadata: Record<string, string>;
}
const TUS_PREFIX = 'tus::';
function storedUploads(): StoredUpload[] {
  const out: StoredUpload[] = [];
  for (let i = 0; i < localStorage.length; i++) {
    const key = localStorage.key(i);
    if (!key?.startsWith(TUS_PREFIX)) continue;
    try {
      out.push({ ...(JSON.parse(localStorage.getItem(key) ?? '') as Omit<StoredUpload, 'urlStorageKey'>), urlStorageKey: key });
    } catch {
      // not one of tus-js-client's entries
    }
  }
  return out;
}
const forget = (key: string) => localStorage.removeItem(key);

/** Uploads this browser began and did not finish (tus keeps them in localStorage), with how far each got at the server. */
function usePendingUploads() {
  const [pending, setPending] = useState<Pending[]>([]);
  const reload = useCallback(async () => {
    const stored = storedUploads();
    const mine = stored.filter((u) => u.uploadUrl?.startsWith(`${UPLOAD_PATH}/`) || u.uploadUrl?.includes(`${UPLOAD_PATH}/`));
    const rows = await Promise.all(
      mine.map(async (u): Promise<Pending | null> => {
        const response = await fetch(u.uploadUrl!, { method: 'HEAD', headers: { 'Tus-Resumable': '1.0.0', ...tusHeaders() } }).catch(
          () => null,
        );
        // Gone (finished elsewhere, discarded, another user's): forgotten here too.
        if (!response || response.status === 404 || response.status === 410) {
          forget(u.urlStorageKey);
          return null;
        }
        return {
          key: u.urlStorageKey,
          uploadUrl: u.uploadUrl!,
          name: u.metadata?.name ?? '',
          size: u.size ?? 0,
          offset: response.ok ? Number(response.headers.get('upload-offset') ?? 0) : null,
        };
      }),
    );
    setPending(rows.filter((r): r is Pending => r !== null));
  }, []);
  useEffect(() => {
    void reload();
  }, [reload]);
  return { pending, reload };
}

const percentOf = (sent: number, total: number) => (total > 0 ? Math.floor((sent / total) * 100) : 0);

/** A progress bar with its percentage: `uploading` while bytes go out, `received` for what the server holds of a stopped one. */
function ProgressLine({ sent, total, label = 'uploading' }: { sent: number; total: number; label?: 'uploading' | 'received' }) {
  const { t } = useTranslation();
  const percent = percentOf(sent, total);
  return (
    <Flex align="center" gap="2" style={{ minWidth: 260 }}>
      <Box flexGrow="1">
        <Progress value={percent} aria-label={t(`file.${label}`, { percent })} />
      </Box>
      <Text size="1" color="gray">
        {t(`file.${label}`, { percent })}
      </Text>
    </Flex>
  );
}

interface UploadValues {
  fileType: string;
  extensionType: string;
  version: string;
  declaration: string;
}

/**
 * The upload dialog: a file and what it is (spec §3, §9), sent in resumable pieces. An upload of the same file
 * begun before (a reload, a lost network) continues where the server's copy ends.
 */
function UploadDialog({
  open,
  resuming,
  maxBytes,
  onClose,
  onDone,
}: {
  open: boolean;
  resuming: Pending | null;
  maxBytes: number;
  onClose: () => void;
  onDone: () => void;
}) {
  const { t } = useTranslation();
  const [file, setFile] = useState<File | null>(null);
  const [values, setValues] = useState<UploadValues>({ fileType: 'upgrade', extensionType: NONE, version: '', declaration: '' });
  const [error, setError] = useState<string | null>(null);
  const [progress, setProgress] = useState<{ sent: number; total: number } | null>(null);
  const upload = useRef<Upload | null>(null);
  const input = useRef<HTMLInputElement>(null);

  useEffect(() => {
    if (!open) return;
    setFile(null);
    setError(null);
    setProgress(null);
  }, [open]);
  const close = () => {
    void upload.current?.abort();
    upload.current = null;
    onClose();
  };

  const start = async () => {
    if (!file) return setError(t('file.noFile'));
    if (maxBytes > 0 && file.size > maxBytes) return setError(t('file.tooLarge', { max: sizeInMb(maxBytes) }));
    if (resuming && (file.name !== resuming.name || file.size !== resuming.size))
      return setError(t('file.resumeWrongFile', { name: resuming.name }));
    setError(null);
    const metadata: Record<string, string> = { name: file.name, fileType: values.fileType };
    if (values.extensionType !== NONE) metadata.extensionType = values.extensionType;
    if (values.version.trim()) metadata.version = values.version.trim();
    if (values.declaration.trim()) metadata.declaration = values.declaration.trim();
    const next = new Upload(file, {
      endpoint: UPLOAD_PATH,
      chunkSize: CHUNK_BYTES,
      retryDelays: [0, 1000, 3000, 5000],
      metadata,
      headers: tusHeaders(),
      storeFingerprintForResuming: true,
      removeFingerprintOnSuccess: true,
      onProgress: (sent, total) => setProgress({ sent, total }),
      onError: (e) => {
        setProgress(null);
        setError(tusMessage(e));
      },
      onSuccess: () => {
        upload.current = null;
        notice.success(t('file.uploaded'));
        onDone();
      },
    });
    const previous = await next.findPreviousUploads();
    const same = resuming ? previous.find((p) => p.urlStorageKey === resuming.key) : previous[0];
    if (same) next.resumeFromPreviousUpload(same);
    upload.current = next;
    setProgress({ sent: same && resuming?.offset ? resuming.offset : 0, total: file.size });
    next.start();
  };

  const busy = progress !== null;
  return (
    <Dialog.Root open={open} onOpenChange={(o) => !o && close()}>
      <Dialog.Content maxWidth="560px" aria-describedby={undefined}>
        <Dialog.Title>{resuming ? `${t('file.resume')}: ${resuming.name}` : t('file.upload')}</Dialog.Title>
        <Flex direction="column" gap="3">
          <Field label={t('file.choose')} required>
            <Flex gap="2" align="center">
              <input
                ref={input}
                type="file"
                aria-label={t('file.choose')}
                style={{ display: 'none' }}
                onChange={(e) => setFile(e.target.files?.[0] ?? null)}
              />
              <Button variant="soft" disabled={busy} onClick={() => input.current?.click()}>
                <UploadIcon />
                {t('file.choose')}
              </Button>
              <Text size="2">{file ? `${file.name} (${sizeInMb(file.size)} MB)` : (resuming?.name ?? '')}</Text>
            </Flex>
          </Field>
          {!resuming && (
            <>
              <Field label={t('file.fileType')} required>
                <SelectInput
                  name="fileType"
                  value={values.fileType}
                  onChange={(v) => setValues({ ...values, fileType: v })}
                  options={labelled(t, 'file.types', fileTypes)}
                />
              </Field>
              <Field label={t('file.extensionType')}>
                <SelectInput
                  name="extensionType"
                  value={values.extensionType}
                  onChange={(v) => setValues({ ...values, extensionType: v })}
                  options={[{ value: NONE, label: '-' }, ...labelled(t, 'file.extensionTypes', fileExtensionTypes)]}
                />
              </Field>
              <Field label={t('file.version')}>
                <TextField.Root name="version" value={values.version} onChange={(e) => setValues({ ...values, version: e.target.value })} />
              </Field>
              <Field label={t('file.declaration')}>
                <TextField.Root
                  name="declaration"
                  value={values.declaration}
                  onChange={(e) => setValues({ ...values, declaration: e.target.value })}
                />
              </Field>
            </>
          )}
          {progress && <ProgressLine sent={progress.sent} total={progress.total} />}
          {error && (
            <Callout.Root color="red" size="1">
              <Callout.Text>{error}</Callout.Text>
            </Callout.Root>
          )}
        </Flex>
        <Flex justify="end" gap="2" mt="4">
          <Button variant="soft" color="gray" onClick={close}>
            {t('common.cancel')}
          </Button>
          <Button loading={busy} onClick={() => void start()}>
            {t('file.start')}
          </Button>
        </Flex>
      </Dialog.Content>
    </Dialog.Root>
  );
}

/** Unfinished uploads of this browser, each with its progress at the server: resumed by choosing the file again. */
function PendingUploads({
  pending,
  onResume,
  onDiscard,
}: {
  pending: Pending[];
  onResume: (p: Pending) => void;
  onDiscard: (p: Pending) => void;
}) {
  const { t } = useTranslation();
  if (pending.length === 0) return null;
  return (
    <Callout.Root color="amber" size="1" mb="3" role="region" aria-label={t('file.unfinished')}>
      <Flex direction="column" gap="2">
        <Text weight="bold">{t('file.unfinished')}</Text>
        <Text size="1" color="gray">
          {t('file.unfinishedHint')}
        </Text>
        {pending.map((p) => (
          <Flex key={p.key} gap="3" align="center" wrap="wrap">
            <Text size="2">
              {p.name} ({sizeInMb(p.size)} MB)
            </Text>
            <ProgressLine sent={p.offset ?? 0} total={p.size} label="received" />
            <Button size="1" variant="soft" onClick={() => onResume(p)}>
              {t('file.resume')}
            </Button>
            <Button size="1" variant="soft" color="red" onClick={() => onDiscard(p)}>
              {t('file.discard')}
            </Button>
          </Flex>
        ))}
      </Flex>
    </Callout.Root>
  );
}

/** File management (spec §2 system management, §3 Uploaded file, §9 types and MB with 2 decimals). */
export function FilePage() {
  const { t } = useTranslation();
  const [uploading, setUploading] = useState<{ resuming: Pending | null } | null>(null);
  const usage = useQuery({ queryKey: [FILES, 'usage'], queryFn: () => callRoute('file.usage', {}) });
  const { pending, reload } = usePendingUploads();
  const refresh = useRefresh(FILES);
  const deleteRows = useListDelete(FILES);
  const discard = async (p: Pending) => {
    await Upload.terminate(p.uploadUrl, { headers: tusHeaders() }).catch(() => {});
    forget(p.key);
    notice.success(t('file.discarded'));
    await reload();
  };
  const download = (r: FileRow) => void downloadRoute('file.download', { id: r.id }, r.name).catch((e) => notice.error(messageOf(e)));
  const columns: ListColumn<FileRow>[] = [
    { id: 'name', header: t('file.name'), value: (r) => r.name, sortable: true, width: 200 },
    {
      id: 'fileType',
      header: t('file.fileType'),
      value: (r) => t(`file.types.${r.fileType}`),
      cell: (r) => (
        <Badge color={r.fileType === 'upgrade' || r.fileType === 'patch' ? 'blue' : 'gray'}>{t(`file.types.${r.fileType}`)}</Badge>
      ),
      width: 110,
    },
    { id: 'extensionType', header: t('file.extensionType'), value: (r) => r.extensionType ?? '-', width: 90 },
    { id: 'version', header: t('file.version'), value: (r) => r.version ?? '-', width: 90 },
    { id: 'size', header: t('file.size'), value: (r) => r.sizeMb, sortable: true, width: 90 },
    { id: 'declaration', header: t('file.declaration'), value: (r) => r.declaration ?? '', width: 160 },
    { id: 'uploader', header: t('file.uploader'), value: (r) => r.uploader, width: 110 },
    { id: 'createTime', header: t('file.createTime'), value: (r) => formatDate(r.createTime, true), sortable: true, width: 150 },
    { id: 'sha256', header: t('file.sha256'), value: (r) => r.sha256, width: 140 },
  ];
  const u = usage.data;
  return (
    <>
      {u && (
        <Text as="p" size="1" color="gray" mb="2">
          {t('file.usage', { used: sizeInMb(u.usedBytes), quota: sizeInMb(u.quotaBytes), max: sizeInMb(u.maxFileBytes) })}
        </Text>
      )}
      <PendingUploads pending={pending} onResume={(p) => setUploading({ resuming: p })} onDiscard={(p) => void discard(p)} />
      <ListPage<FileRow>
        queryKey={FILES}
        route="file.list"
        exportName={t('objects.file')}
        columns={columns}
        defaultSort={{ sort: 'createTime', order: 'desc' }}
        filters={[
          { name: 'name', label: t('file.name') },
          { name: 'fileType', label: t('file.fileType'), type: 'select', options: labelled(t, 'file.types', fileTypes) },
          {
            name: 'extensionType',
            label: t('file.extensionType'),
            type: 'select',
            options: labelled(t, 'file.extensionTypes', fileExtensionTypes),
          },
          { name: 'uploader', label: t('file.uploader') },
        ]}
        rowActions={(r) => (
          <Flex gap="2">
            <PermittedRowButton permission={filePerm.download} label={t('file.download')} onClick={() => download(r)} />
          </Flex>
        )}
        actions={[
          {
            label: t('file.upload'),
            icon: <UploadIcon />,
            permission: filePerm.upload,
            select: 'none',
            onClick: () => setUploading({ resuming: null }),
          },
          {
            label: t('common.delete'),
            permission: filePerm.delete,
            select: 'some',
            color: 'red',
            onClick: (rows) =>
              deleteRows(
                deleteQuestion(
                  t,
                  t('objects.file'),
                  rows.map((r) => r.name),
                ),
                async () => {
                  for (const r of rows) await callRoute('file.delete', { query: { id: r.id } });
                  await usage.refetch();
                },
              ),
          },
        ]}
      />
      <UploadDialog
        open={uploading !== null}
        resuming={uploading?.resuming ?? null}
        maxBytes={u?.maxFileBytes ?? 0}
        onClose={() => {
          setUploading(null);
          void reload();
        }}
        onDone={() => {
          setUploading(null);
          void reload();
          void usage.refetch();
          void refresh();
        }}
      />
    </>
  );
}
