import './i18n.ts';
import './video.css';
import Hls from 'hls.js';
import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Badge, Button, Flex, SegmentedControl, Text, TextField } from '@radix-ui/themes';
import { useQuery } from '@tanstack/react-query';
import { videoPerm } from '@iot/contracts/video/permissions.ts';
import { perm } from '@iot/contracts/identity/permissions.ts';
import { can } from '../api/session.ts';
import { useSession } from '../auth/useSession.ts';
import { callRoute } from '../api/client.ts';
import { crudActions, useEachDelete, useRecordDialog } from '../ui/crud.tsx';
import { Field, FormDialog, checkBody } from '../ui/form.tsx';
import { formatDate } from '../ui/format.ts';
import { ListPage, type ListColumn } from '../ui/ListPage.tsx';
import { SelectInput } from '../ui/widgets.tsx';

type CameraRow = Awaited<ReturnType<typeof callRoute<'camera.list'>>>['rows'][number];
const CAMERAS = 'cameras';
const layouts = ['1', '4', '9'] as const;
type Layout = (typeof layouts)[number];
/** The select's value for "no group" (a select item cannot be empty). */
const NONE = '*';
type TileStatus = 'loading' | 'playing' | 'error';
const statusColour = { loading: 'amber', playing: 'green', error: 'red' } as const;

/**
 * One live view: hls.js plays the camera's playlist (Safari plays HLS itself); a fatal error of the stream shows the
 * error state with a retry, and the player is torn down when the tile leaves the wall.
 */
function CameraTile({ camera }: { camera: CameraRow }) {
  const { t } = useTranslation();
  const video = useRef<HTMLVideoElement>(null);
  const [status, setStatus] = useState<TileStatus>('loading');
  const [attempt, setAttempt] = useState(0);
  useEffect(() => {
    const media = video.current;
    if (!media) return;
    setStatus('loading');
    const playing = () => setStatus('playing');
    const failed = () => setStatus('error');
    media.addEventListener('playing', playing);
    let hls: Hls | null = null;
    if (Hls.isSupported()) {
      hls = new Hls({ manifestLoadingMaxRetry: 1, levelLoadingMaxRetry: 1, fragLoadingMaxRetry: 1 });
      hls.on(Hls.Events.ERROR, (_event, data) => {
        if (data.fatal) failed();
      });
      hls.loadSource(camera.streamUrl);
      hls.attachMedia(media);
    } else if (media.canPlayType('application/vnd.apple.mpegurl')) {
      media.src = camera.streamUrl;
      media.addEventListener('error', failed);
    } else failed();
    // Autoplay may be refused (or, off a browser, missing): the tile then waits for the user's play.
    void Promise.resolve()
      .then(() => media.play())
      .catch(() => undefined);
    return () => {
      media.removeEventListener('playing', playing);
      media.removeEventListener('error', failed);
      hls?.destroy();
    };
  }, [camera.streamUrl, attempt]);
  return (
    <div className="video-tile" data-testid="video-tile" data-status={status}>
      <video ref={video} muted playsInline autoPlay className="video-media" aria-label={camera.name} />
      {status === 'error' && (
        <Flex className="video-overlay" direction="column" align="center" justify="center" gap="2">
          <Text size="2" role="alert">
            {t('video.streamFailed')}
          </Text>
          <Button size="1" onClick={() => setAttempt((n) => n + 1)}>
            {t('video.retry')}
          </Button>
        </Flex>
      )}
      <Flex className="video-caption" justify="between" align="center" gap="2">
        <Text size="2" weight="medium" truncate>
          {camera.name}
          {camera.location ? ` · ${camera.location}` : ''}
        </Text>
        <Badge color={statusColour[status]} variant="solid">
          {t(`video.status.${status}`)}
        </Badge>
      </Flex>
    </div>
  );
}

/** The wall: 1, 4 or 9 live views at a time, paged through the tenant's cameras. */
function VideoWall() {
  const { t } = useTranslation();
  const [layout, setLayout] = useState<Layout>('4');
  const [page, setPage] = useState(1);
  const size = Number(layout);
  const cameras = useQuery({
    queryKey: [CAMERAS, 'wall', size, page],
    queryFn: () => callRoute('camera.list', { query: { page, pageSize: size, sort: 'name', order: 'asc' } }),
  });
  const pages = Math.max(1, Math.ceil((cameras.data?.total ?? 0) / size));
  const rows = cameras.data?.rows ?? [];
  return (
    <Flex direction="column" gap="3">
      <Flex gap="3" align="center" wrap="wrap">
        <Text size="2">{t('video.layout')}</Text>
        <SegmentedControl.Root
          value={layout}
          onValueChange={(v) => {
            setLayout(v as Layout);
            setPage(1);
          }}
        >
          {layouts.map((l) => (
            <SegmentedControl.Item key={l} value={l}>
              {t(`video.layouts.${l}`)}
            </SegmentedControl.Item>
          ))}
        </SegmentedControl.Root>
        {pages > 1 && (
          <Flex gap="2" align="center">
            <Button size="1" variant="soft" disabled={page <= 1} onClick={() => setPage(page - 1)}>
              {t('video.prev')}
            </Button>
            <Text size="2">{t('video.page', { page, pages })}</Text>
            <Button size="1" variant="soft" disabled={page >= pages} onClick={() => setPage(page + 1)}>
              {t('video.next')}
            </Button>
          </Flex>
        )}
      </Flex>
      {cameras.isSuccess && rows.length === 0 ? (
        <Flex className="video-empty" direction="column" align="center" justify="center" gap="2" data-testid="video-empty">
          <Text size="4" weight="medium">
            {t('video.empty')}
          </Text>
          <Text size="2" color="gray">
            {t('video.emptyHint')}
          </Text>
        </Flex>
      ) : (
        <div className={`video-grid video-grid-${layout}`}>
          {rows.map((c) => (
            <CameraTile key={c.id} camera={c} />
          ))}
        </div>
      )}
    </Flex>
  );
}

const empty = { id: '', name: '', streamUrl: '', groupId: NONE, deviceId: '', location: '', remark: '' };
type Values = typeof empty;
const valuesOf = (e: CameraRow | 'new' | null): Values =>
  e && e !== 'new'
    ? {
        id: e.id,
        name: e.name,
        streamUrl: e.streamUrl,
        groupId: e.groupId ?? NONE,
        deviceId: e.deviceId ?? '',
        location: e.location ?? '',
        remark: e.remark ?? '',
      }
    : empty;

function CameraDialog({ editing, onClose }: { editing: CameraRow | 'new' | null; onClose: () => void }) {
  const { t } = useTranslation();
  const me = useSession();
  const creating = editing === 'new';
  const groups = useQuery({
    queryKey: ['groups', 'options'],
    enabled: can(me, perm.groupList),
    queryFn: async () =>
      (await callRoute('group.list', { query: { pageSize: 500 } }, { noRedirect: true })).rows.map((g) => ({ value: g.id, label: g.name })),
  });
  const { form, run, done, dialog } = useRecordDialog({ editing, empty, queryKey: CAMERAS, onClose, valuesOf });
  const v = form.values;
  const submit = async () => {
    const orNull = (s: string) => (s.trim() === '' ? null : s);
    const body = {
      name: v.name,
      streamUrl: v.streamUrl,
      groupId: v.groupId === NONE ? null : v.groupId,
      deviceId: orNull(v.deviceId),
      location: orNull(v.location),
      remark: orNull(v.remark),
    };
    const checked = creating ? checkBody('camera.create', body, t) : checkBody('camera.update', { ...body, id: v.id }, t);
    if (!checked.ok) return form.setErrors(checked.errors);
    await run(async () => {
      await callRoute(checked.route, { body: checked.data });
      await done(t(creating ? 'common.created' : 'common.saved'));
    });
  };
  const text = (key: keyof Values, label: string, required = false, hint?: string) => (
    <Field label={label} required={required} error={form.errors[key]} hint={hint}>
      <TextField.Root name={key} value={v[key]} onChange={(e) => form.set(key, e.target.value)} />
    </Field>
  );
  return (
    <FormDialog
      {...dialog}
      width="600px"
      title={t(creating ? 'common.addObject' : 'common.editObject', { object: t('objects.camera') })}
      onSubmit={() => void submit()}
    >
      {text('name', t('video.name'), true)}
      {text('streamUrl', t('video.streamUrl'), true, t('video.streamHint'))}
      <Field label={t('video.group')} error={form.errors.groupId}>
        <SelectInput
          name="groupId"
          value={v.groupId}
          onChange={(x) => form.set('groupId', x)}
          options={[{ value: NONE, label: t('video.noGroup') }, ...(groups.data ?? [])]}
        />
      </Field>
      {text('deviceId', t('video.device'))}
      {text('location', t('video.location'))}
      {text('remark', t('video.remark'))}
    </FormDialog>
  );
}

function CameraList() {
  const { t } = useTranslation();
  const [editing, setEditing] = useState<CameraRow | 'new' | null>(null);
  const deleteRows = useEachDelete<CameraRow>(CAMERAS, 'camera.delete', t('objects.camera'), (r) => r.name);
  const columns: ListColumn<CameraRow>[] = [
    { id: 'name', header: t('video.name'), value: (r) => r.name, sortable: true, width: 160 },
    { id: 'streamUrl', header: t('video.streamUrl'), value: (r) => r.streamUrl, width: 280 },
    { id: 'location', header: t('video.location'), value: (r) => r.location, width: 140 },
    { id: 'deviceId', header: t('video.device'), value: (r) => r.deviceId, width: 140 },
    { id: 'createTime', header: t('video.createTime'), value: (r) => formatDate(r.createTime), sortable: true, width: 110 },
  ];
  return (
    <>
      <ListPage<CameraRow>
        queryKey={CAMERAS}
        route="camera.list"
        exportName={t('objects.camera')}
        columns={columns}
        defaultSort={{ sort: 'createTime', order: 'desc' }}
        filters={[{ name: 'name', label: t('video.name') }]}
        actions={crudActions<CameraRow>(
          t,
          { add: videoPerm.add, edit: videoPerm.edit, delete: videoPerm.delete },
          {
            add: () => setEditing('new'),
            edit: setEditing,
            remove: deleteRows,
          },
        )}
      />
      <CameraDialog editing={editing} onClose={() => setEditing(null)} />
    </>
  );
}

/** Operation center → video surveillance (spec §2): the wall of live views, and the cameras it shows. */
export function VideoWallPage() {
  const { t } = useTranslation();
  const [tab, setTab] = useState<'wall' | 'cameras'>('wall');
  return (
    <Flex direction="column" gap="3">
      <SegmentedControl.Root value={tab} onValueChange={(v) => setTab(v as 'wall' | 'cameras')} style={{ alignSelf: 'flex-start' }}>
        <SegmentedControl.Item value="wall">{t('video.wall')}</SegmentedControl.Item>
        <SegmentedControl.Item value="cameras">{t('video.cameras')}</SegmentedControl.Item>
      </SegmentedControl.Root>
      {tab === 'wall' ? <VideoWall /> : <CameraList />}
    </Flex>
  );
}
