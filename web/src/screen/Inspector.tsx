import { useTranslation } from 'react-i18next';
import { Badge, Button, Flex, Heading, Text, TextField } from '@radix-ui/themes';
import { useQuery } from '@tanstack/react-query';
import { unboundWidgetKinds, type ScreenWidget } from '@iot/contracts/screen/model.ts';
import { devicePerm } from '@iot/contracts/device/permissions.ts';
import { statPerm } from '@iot/contracts/stat/permissions.ts';
import { perm } from '@iot/contracts/identity/permissions.ts';
import { callRoute } from '../api/client.ts';
import { can } from '../api/session.ts';
import { useSession } from '../auth/useSession.ts';
import { SelectInput } from '../ui/widgets.tsx';
import { SCREENS } from './useScreen.ts';

/** The "any" entry of the map's group and product pickers. */
const ANY = '*';

/** The inspector of the selected widget: title, binding and the options its kind uses. */
export function Inspector({
  widget,
  onChange,
  onRemove,
}: {
  widget: ScreenWidget;
  onChange: (w: ScreenWidget) => void;
  onRemove: () => void;
}) {
  const { t } = useTranslation();
  const user = useSession();
  const b = widget.binding;
  const devices = useQuery({
    queryKey: [SCREENS, 'devices'],
    enabled: b.source === 'device' && can(user, devicePerm.deviceList),
    queryFn: async () => (await callRoute('device.list', { query: { pageSize: 500 } })).rows,
  });
  const device = b.source === 'device' ? devices.data?.find((d) => d.id === b.deviceId) : undefined;
  const product = useQuery({
    queryKey: [SCREENS, 'product', device?.productId],
    enabled: !!device && can(user, devicePerm.productList),
    queryFn: () => callRoute('product.detail', { query: { id: device!.productId } }),
  });
  const tasks = useQuery({
    queryKey: [SCREENS, 'tasks'],
    enabled: b.source === 'stat' && can(user, statPerm.list),
    queryFn: async () => (await callRoute('statTask.list', { query: { pageSize: 500 } })).rows,
  });
  const groups = useQuery({
    queryKey: [SCREENS, 'groups'],
    enabled: b.source === 'map' && can(user, perm.groupList),
    queryFn: async () => (await callRoute('group.list', { query: { pageSize: 500 } })).rows.map((g) => ({ value: g.id, label: g.name })),
  });
  const products = useQuery({
    queryKey: [SCREENS, 'products'],
    enabled: b.source === 'map' && can(user, devicePerm.productList),
    queryFn: async () => (await callRoute('product.list', { query: { pageSize: 500 } })).rows.map((p) => ({ value: p.id, label: p.name })),
  });
  const variables = (product.data?.functions ?? [])
    .filter((f) => f.type === 'property')
    .map((f) => ({ value: String(f.identifier), label: `${String(f.name)} (${String(f.identifier)})` }));
  const bindable = !unboundWidgetKinds.includes(widget.kind);
  const setOption = (key: keyof ScreenWidget['options'], value: string | number | undefined) => {
    const options = { ...widget.options, [key]: value };
    if (value === undefined || value === '') delete options[key];
    onChange({ ...widget, options });
  };
  const field = (label: string, input: React.ReactNode) => (
    <label className="sw-field">
      <Text size="1" color="gray">
        {label}
      </Text>
      {input}
    </label>
  );
  const numberOption = (key: 'min' | 'max' | 'decimals') =>
    field(
      t(`screen.options.${key}`),
      <TextField.Root
        type="number"
        aria-label={t(`screen.options.${key}`)}
        value={widget.options[key] ?? ''}
        onChange={(e) => setOption(key, e.target.value === '' ? undefined : Number(e.target.value))}
      />,
    );
  const textOption = (key: 'unit' | 'text' | 'url') =>
    field(
      t(`screen.options.${key}`),
      <TextField.Root
        aria-label={t(`screen.options.${key}`)}
        value={widget.options[key] ?? ''}
        onChange={(e) => setOption(key, e.target.value)}
      />,
    );
  const sources = !bindable
    ? (['none'] as const)
    : widget.kind === 'map'
      ? (['map', 'none'] as const)
      : (['none', 'device', 'stat', 'alarm'] as const);
  return (
    <Flex direction="column" gap="2" data-testid="screen-inspector">
      <Badge>{t(`screen.kinds.${widget.kind}`)}</Badge>
      <Text size="1" color="gray">
        {t('screen.size', { x: widget.x, y: widget.y, w: widget.w, h: widget.h })}
      </Text>
      {field(
        t('screen.widgetTitle'),
        <TextField.Root
          aria-label={t('screen.widgetTitle')}
          value={widget.title}
          maxLength={64}
          onChange={(e) => onChange({ ...widget, title: e.target.value })}
        />,
      )}
      {bindable && (
        <>
          <Heading size="1">{t('screen.binding.title')}</Heading>
          {field(
            t('screen.binding.source'),
            <SelectInput
              name={t('screen.binding.source')}
              value={b.source}
              onChange={(source) =>
                onChange({
                  ...widget,
                  binding:
                    source === 'device'
                      ? { source, deviceId: '', variable: '' }
                      : source === 'stat'
                        ? { source, statTaskId: '' }
                        : source === 'alarm'
                          ? { source, level: null, status: null }
                          : source === 'map'
                            ? { source, groupId: null, productId: null }
                            : { source: 'none' },
                })
              }
              options={sources.map((s) => ({ value: s, label: t(`screen.binding.${s}`) }))}
            />,
          )}
          {b.source === 'device' && (
            <>
              {field(
                t('screen.binding.deviceId'),
                <SelectInput
                  name={t('screen.binding.deviceId')}
                  value={b.deviceId || null}
                  placeholder={t('screen.binding.pick')}
                  onChange={(deviceId) => onChange({ ...widget, binding: { ...b, deviceId, variable: '' } })}
                  options={(devices.data ?? []).map((d) => ({ value: d.id, label: `${d.name} (${d.sn})` }))}
                />,
              )}
              {field(
                t('screen.binding.variable'),
                variables.length > 0 ? (
                  <SelectInput
                    name={t('screen.binding.variable')}
                    value={b.variable || null}
                    placeholder={t('screen.binding.pick')}
                    onChange={(variable) => onChange({ ...widget, binding: { ...b, variable } })}
                    options={variables}
                  />
                ) : (
                  <TextField.Root
                    aria-label={t('screen.binding.variable')}
                    value={b.variable}
                    onChange={(e) => onChange({ ...widget, binding: { ...b, variable: e.target.value } })}
                  />
                ),
              )}
            </>
          )}
          {b.source === 'map' && (
            <>
              {field(
                t('screen.binding.groupId'),
                <SelectInput
                  name={t('screen.binding.groupId')}
                  value={b.groupId ?? ANY}
                  onChange={(v) => onChange({ ...widget, binding: { ...b, groupId: v === ANY ? null : v } })}
                  options={[{ value: ANY, label: t('screen.binding.anyGroup') }, ...(groups.data ?? [])]}
                />,
              )}
              {field(
                t('screen.binding.productId'),
                <SelectInput
                  name={t('screen.binding.productId')}
                  value={b.productId ?? ANY}
                  onChange={(v) => onChange({ ...widget, binding: { ...b, productId: v === ANY ? null : v } })}
                  options={[{ value: ANY, label: t('screen.binding.anyProduct') }, ...(products.data ?? [])]}
                />,
              )}
            </>
          )}
          {b.source === 'stat' &&
            field(
              t('screen.binding.statTaskId'),
              <SelectInput
                name={t('screen.binding.statTaskId')}
                value={b.statTaskId || null}
                placeholder={t('screen.binding.pick')}
                onChange={(statTaskId) => onChange({ ...widget, binding: { ...b, statTaskId } })}
                options={(tasks.data ?? []).map((task) => ({ value: task.id, label: task.name }))}
              />,
            )}
          {b.source === 'alarm' && (
            <>
              {field(
                t('screen.binding.level'),
                <SelectInput
                  name={t('screen.binding.level')}
                  value={String(b.level ?? 0)}
                  onChange={(v) => onChange({ ...widget, binding: { ...b, level: Number(v) || null } })}
                  options={[0, 1, 2, 3, 4, 5].map((l) => ({
                    value: String(l),
                    label: l ? t(`alarm.levels.${l}`) : t('screen.binding.anyLevel'),
                  }))}
                />,
              )}
              {field(
                t('screen.binding.status'),
                <SelectInput
                  name={t('screen.binding.status')}
                  value={b.status ?? 'active'}
                  onChange={(v) => onChange({ ...widget, binding: { ...b, status: v === 'cleared' ? 'cleared' : 'active' } })}
                  options={(['active', 'cleared'] as const).map((s) => ({ value: s, label: t(`screen.binding.${s}`) }))}
                />,
              )}
            </>
          )}
        </>
      )}
      {['gauge', 'progress', 'liquid', 'pie'].includes(widget.kind) && (
        <Flex gap="2">
          {numberOption('min')}
          {numberOption('max')}
        </Flex>
      )}
      {['number', 'gauge', 'progress', 'liquid'].includes(widget.kind) && (
        <Flex gap="2">
          {textOption('unit')}
          {numberOption('decimals')}
        </Flex>
      )}
      {widget.kind === 'text' && textOption('text')}
      {(widget.kind === 'image' || widget.kind === 'video') && textOption('url')}
      {field(
        t('screen.options.color'),
        <input
          type="color"
          aria-label={t('screen.options.color')}
          value={widget.options.color ?? '#4CC3FF'}
          onChange={(e) => setOption('color', e.target.value.toUpperCase())}
        />,
      )}
      <Button color="red" variant="soft" onClick={onRemove}>
        {t('screen.removeWidget')}
      </Button>
    </Flex>
  );
}
