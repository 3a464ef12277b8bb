import './i18n.ts';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Button, Dialog, Flex, Heading, Text, TextArea, TextField } from '@radix-ui/themes';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import type { TopoElementRow } from '@iot/contracts/diagram/topo-element.ts';
import { operationPerm } from '@iot/contracts/operation/permissions.ts';
import { filePerm } from '@iot/contracts/file/permissions.ts';
import { callRoute, fileUrl, messageOf } from '../api/client.ts';
import { can } from '../api/session.ts';
import { useSession } from '../auth/useSession.ts';
import { deleteQuestion } from '../ui/crud.tsx';
import { confirm, notice } from '../ui/feedback.tsx';
import { formatDate } from '../ui/format.ts';
import { ListPage, type ListColumn } from '../ui/ListPage.tsx';
import { SelectInput } from '../ui/widgets.tsx';

export const TOPO_ELEMENTS = 'topoElements';
const IMAGE_NAME = /\.(png|jpe?g|gif|svg|webp)$/i;
const NO_IMAGE = '-';

/** The tenant's topo elements, for the palette and this tab (who may see the scene may list them). */
export function useTopoElements() {
  return useQuery({
    queryKey: [TOPO_ELEMENTS],
    queryFn: async () => (await callRoute('topoElement.list', { query: { pageSize: 200 } })).rows,
  });
}

/** The tenant's uploaded images (file management), for an element's or an image widget's picture. */
export function useUploadedImages() {
  const user = useSession();
  return useQuery({
    queryKey: [TOPO_ELEMENTS, 'images'],
    enabled: can(user, filePerm.list),
    queryFn: async () => (await callRoute('file.list', { query: { pageSize: 500 } })).rows.filter((f) => IMAGE_NAME.test(f.name)),
  });
}

/** An uploaded image's address: the file download the session cookie authorises. */
export const imageUrl = (fileId: string) => fileUrl('file.download', { id: fileId });

/** A select of the uploaded images, with "none". */
export function ImagePicker({ value, onChange, name }: { value: string | null; onChange: (id: string | null) => void; name: string }) {
  const { t } = useTranslation();
  const images = useUploadedImages();
  if (images.data && images.data.length === 0)
    return (
      <Text size="1" color="gray" as="div">
        {t('diagram.noImages')}
      </Text>
    );
  return (
    <SelectInput
      name={name}
      value={value ?? NO_IMAGE}
      onChange={(v) => onChange(v === NO_IMAGE ? null : v)}
      options={[{ value: NO_IMAGE, label: t('topoElement.noImage') }, ...(images.data ?? []).map((f) => ({ value: f.id, label: f.name }))]}
    />
  );
}

type Draft = Pick<TopoElementRow, 'name' | 'width' | 'height' | 'remark' | 'imageFileId'>;
const blank: Draft = { name: '', width: 80, height: 80, remark: null, imageFileId: null };

function ElementDialog({ element, onClose }: { element: TopoElementRow | 'new' | null; onClose: () => void }) {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const [draft, setDraft] = useState<Draft>(blank);
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    if (element) setDraft(element === 'new' ? blank : element);
  }, [element]);
  const save = async () => {
    setBusy(true);
    try {
      const body = { ...draft, remark: draft.remark || null };
      if (element === 'new') await callRoute('topoElement.create', { body });
      else if (element) await callRoute('topoElement.update', { body: { id: element.id, ...body } });
      notice.success(t('topoElement.saved'));
      await queryClient.invalidateQueries({ queryKey: [TOPO_ELEMENTS] });
      onClose();
    } catch (e) {
      notice.error(messageOf(e));
    } finally {
      setBusy(false);
    }
  };
  const size = (key: 'width' | 'height') => (
    <label style={{ flex: 1 }}>
      <Text size="2">{t(`topoElement.${key}`)}</Text>
      <TextField.Root
        type="number"
        min={8}
        max={2000}
        required
        aria-label={t(`topoElement.${key}`)}
        value={draft[key]}
        onChange={(e) => setDraft({ ...draft, [key]: Math.round(Number(e.target.value)) })}
      />
    </label>
  );
  return (
    <Dialog.Root open={!!element} onOpenChange={(open) => !open && onClose()}>
      <Dialog.Content maxWidth="460px">
        <Dialog.Title>{t(element === 'new' ? 'topoElement.create' : 'topoElement.edit')}</Dialog.Title>
        <form
          onSubmit={(e) => {
            e.preventDefault();
            void save();
          }}
        >
          <Flex direction="column" gap="3">
            <label>
              <Text size="2">{t('topoElement.name')}</Text>
              <TextField.Root
                aria-label={t('topoElement.name')}
                value={draft.name}
                maxLength={64}
                required
                onChange={(e) => setDraft({ ...draft, name: e.target.value })}
              />
            </label>
            <Flex gap="3">
              {size('width')}
              {size('height')}
            </Flex>
            <label>
              <Text size="2">{t('topoElement.image')}</Text>
              <ImagePicker
                name={t('topoElement.image')}
                value={draft.imageFileId}
                onChange={(id) => setDraft({ ...draft, imageFileId: id })}
              />
            </label>
            <label>
              <Text size="2">{t('topoElement.remark')}</Text>
              <TextArea
                aria-label={t('topoElement.remark')}
                value={draft.remark ?? ''}
                maxLength={256}
                onChange={(e) => setDraft({ ...draft, remark: e.target.value })}
              />
            </label>
          </Flex>
          <Flex justify="end" gap="2" mt="3">
            <Dialog.Close>
              <Button type="button" variant="soft" color="gray">
                {t('common.cancel')}
              </Button>
            </Dialog.Close>
            <Button type="submit" disabled={busy || !draft.name.trim() || !(draft.width >= 8 && draft.height >= 8)}>
              {t('common.confirm')}
            </Button>
          </Flex>
        </form>
      </Dialog.Content>
    </Dialog.Root>
  );
}

/** Topo elements (spec §3: name, default width and height, remark, and an uploaded image): the palette's own pieces. */
export function TopoElements() {
  const { t } = useTranslation();
  const user = useSession();
  const queryClient = useQueryClient();
  const [editing, setEditing] = useState<TopoElementRow | 'new' | null>(null);
  const mayChange = can(user, operationPerm.sceneElement);
  const remove = async (e: TopoElementRow) => {
    if (!(await confirm({ title: t('topoElement.delete'), message: deleteQuestion(t, t('objects.topoElement'), [e.name]), danger: true })))
      return;
    try {
      await callRoute('topoElement.delete', { query: { id: e.id } });
      await queryClient.invalidateQueries({ queryKey: [TOPO_ELEMENTS] });
    } catch (err) {
      // An element a diagram places stays: the message names the diagrams.
      notice.error(messageOf(err));
    }
  };
  const columns: ListColumn<TopoElementRow>[] = [
    {
      id: 'image',
      header: t('topoElement.image'),
      width: 80,
      exportable: false,
      cell: (e) => (e.imageFileId ? <img src={imageUrl(e.imageFileId)} alt={e.name} style={{ maxWidth: 48, maxHeight: 32 }} /> : '--'),
    },
    { id: 'name', header: t('topoElement.name'), value: (e) => e.name, sortable: true },
    { id: 'width', header: t('topoElement.width'), value: (e) => e.width, width: 90 },
    { id: 'height', header: t('topoElement.height'), value: (e) => e.height, width: 90 },
    { id: 'remark', header: t('topoElement.remark'), value: (e) => e.remark || '--' },
    { id: 'updateTime', header: t('diagram.updateTime'), value: (e) => formatDate(e.updateTime, true), sortable: true, width: 180 },
  ];
  return (
    <Flex direction="column" gap="3" data-testid="topo-elements">
      <Heading size="3">{t('topoElement.title')}</Heading>
      <div data-testid="topo-element-list">
        <ListPage<TopoElementRow>
          queryKey={TOPO_ELEMENTS}
          route="topoElement.list"
          exportName={t('topoElement.title')}
          columns={columns}
          selectable={false}
          defaultSort={{ sort: 'createTime', order: 'desc' }}
          filters={[{ name: 'name', label: t('topoElement.name') }]}
          empty={
            <div data-testid="topo-elements-empty">
              <Text as="div" weight="bold">
                {t('topoElement.empty')}
              </Text>
              <Text as="div" size="2" color="gray">
                {t('topoElement.emptyHint')}
              </Text>
            </div>
          }
          actions={[
            { label: t('topoElement.create'), permission: operationPerm.sceneElement, select: 'none', onClick: () => setEditing('new') },
          ]}
          rowActions={(e) =>
            mayChange && (
              <>
                <Button size="1" variant="soft" onClick={() => setEditing(e)}>
                  {t('diagram.edit')}
                </Button>
                <Button size="1" variant="soft" color="red" onClick={() => void remove(e)}>
                  {t('topoElement.delete')}
                </Button>
              </>
            )
          }
        />
      </div>
      <ElementDialog element={editing} onClose={() => setEditing(null)} />
    </Flex>
  );
}
