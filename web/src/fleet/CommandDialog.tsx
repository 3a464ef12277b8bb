import './i18n.ts';
import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Badge, Button, Callout, Code, Dialog, Flex, Table, Text, TextArea, TextField } from '@radix-ui/themes';
import { devicePerm } from '@iot/contracts/device/permissions.ts';
import { callRoute, channelUrl, messageOf } from '../api/client.ts';
import { can } from '../api/session.ts';
import { useSession } from '../auth/useSession.ts';
import { Field } from '../ui/form.tsx';
import { formatDate } from '../ui/format.ts';
import { SelectInput } from '../ui/widgets.tsx';

/** A thing-model function as the device detail carries it. */
type Fn = Record<string, unknown>;
type Spec = { type?: string; enumValues?: Array<{ value: number | string; label: string }> | null; unit?: string | null };
type Input = { identifier: string; name: string; dataType: Spec };
type Reply = { status: 'sent' | 'replied' | 'timeout' | 'offline'; output?: unknown };

const json = (v: unknown) => (v === null || v === undefined ? '--' : typeof v === 'string' ? v : JSON.stringify(v));
const numeric = new Set(['int', 'long', 'float', 'double']);

/** The text of an input as the value its data type says: numbers, booleans, enum values, JSON for structs and arrays. */
function parseValue(spec: Spec, text: string): { ok: true; value: unknown } | { ok: false } {
  const type = spec.type ?? 'text';
  if (numeric.has(type)) return text.trim() !== '' && Number.isFinite(Number(text)) ? { ok: true, value: Number(text) } : { ok: false };
  if (type === 'bool') return text === 'true' || text === 'false' ? { ok: true, value: text === 'true' } : { ok: false };
  if (type === 'enum') {
    const match = spec.enumValues?.find((e) => String(e.value) === text);
    return match ? { ok: true, value: match.value } : { ok: false };
  }
  if (type === 'struct' || type === 'array') {
    try {
      return { ok: true, value: JSON.parse(text) as unknown };
    } catch {
      return { ok: false };
    }
  }
  return { ok: true, value: text };
}

/** One input typed by its data type: a choice for enums and booleans, a number, JSON for structs and arrays, else text. */
function ValueInput({ spec, label, value, onChange }: { spec: Spec; label: string; value: string; onChange: (v: string) => void }) {
  const { t } = useTranslation();
  const type = spec.type ?? 'text';
  if (type === 'bool' || type === 'enum') {
    const options =
      type === 'bool'
        ? [
            { value: 'true', label: 'true' },
            { value: 'false', label: 'false' },
          ]
        : (spec.enumValues ?? []).map((e) => ({ value: String(e.value), label: `${e.label} (${e.value})` }));
    return (
      <SelectInput value={value || null} onChange={onChange} options={options} name={label} placeholder={t('common.selectPlaceholder')} />
    );
  }
  if (type === 'struct' || type === 'array')
    return <TextArea aria-label={label} value={value} onChange={(e) => onChange(e.target.value)} placeholder="{}" />;
  return (
    <TextField.Root
      aria-label={label}
      type={numeric.has(type) ? 'number' : 'text'}
      value={value}
      onChange={(e) => onChange(e.target.value)}
    >
      {spec.unit ? <TextField.Slot side="right">{spec.unit}</TextField.Slot> : null}
    </TextField.Root>
  );
}

/**
 * The command dialog (issue 11 "Commands to devices"): a thing-model service with its inputs, or a writable
 * property and a value, sent synchronously (shows the reply or the time-out) or asynchronously; a writable
 * property may also be set as the desired value, which the platform re-sends until the device reports it.
 */
export function CommandDialog({ deviceId, functions, onClose }: { deviceId: string; functions: Fn[]; onClose: () => void }) {
  const { t } = useTranslation();
  const client = useQueryClient();
  const choices = functions.filter((f) => f.type === 'service' || (f.type === 'property' && f.access === 'rw'));
  const [key, setKey] = useState('');
  const [values, setValues] = useState<Record<string, string>>({});
  const [mode, setMode] = useState<'sync' | 'async'>('sync');
  const [error, setError] = useState<string | null>(null);
  const [reply, setReply] = useState<Reply | null>(null);
  const [busy, setBusy] = useState(false);
  const fn = choices.find((f) => `${String(f.type)}:${String(f.identifier)}` === key);
  const inputs: Input[] = !fn
    ? []
    : fn.type === 'service'
      ? ((fn.inputs as Input[] | undefined) ?? [])
      : [{ identifier: 'value', name: t('cmd.value'), dataType: fn.dataType as Spec }];

  const choose = (k: string) => {
    setKey(k);
    setValues({});
    setReply(null);
    setError(null);
    const next = choices.find((f) => `${String(f.type)}:${String(f.identifier)}` === k);
    setMode(next?.type === 'service' && next.invoke === 'async' ? 'async' : next?.type === 'property' ? 'async' : 'sync');
  };
  const params = (): Record<string, unknown> | null => {
    const out: Record<string, unknown> = {};
    for (const input of inputs) {
      const parsed = parseValue(input.dataType, values[input.identifier] ?? '');
      if (!parsed.ok) {
        setError(`${input.name}: ${t('cmd.badValue')}`);
        return null;
      }
      out[input.identifier] = parsed.value;
    }
    return out;
  };
  const run = async (desired: boolean) => {
    if (!fn) return;
    const p = params();
    if (!p) return;
    setError(null);
    setReply(null);
    setBusy(true);
    try {
      const identifier = String(fn.identifier);
      if (desired) {
        const r = await callRoute('device.setDesired', { body: { id: deviceId, identifier, value: p.value } });
        setReply({ status: r.status });
      } else {
        const kind = fn.type === 'service' ? 'service' : 'property';
        const r = await callRoute('device.command', { body: { id: deviceId, kind, identifier, params: p, mode } });
        setReply({ status: r.status, output: r.output });
      }
    } catch (e) {
      setError(messageOf(e));
    } finally {
      setBusy(false);
      void client.invalidateQueries({ queryKey: ['commands', deviceId] });
      void client.invalidateQueries({ queryKey: ['desired', deviceId] });
    }
  };

  return (
    <Dialog.Root open onOpenChange={(o) => !o && !busy && onClose()}>
      <Dialog.Content maxWidth="560px" aria-describedby={undefined}>
        <Dialog.Title>{t('cmd.title')}</Dialog.Title>
        <Flex direction="column" gap="3">
          <Field label={t('cmd.function')} required>
            <SelectInput
              value={key || null}
              onChange={choose}
              name={t('cmd.function')}
              placeholder={t('common.selectPlaceholder')}
              options={choices.map((f) => ({
                value: `${String(f.type)}:${String(f.identifier)}`,
                label: `${t(`fleet.types.${String(f.type)}`)} · ${String(f.name)} (${String(f.identifier)})`,
              }))}
            />
          </Field>
          {inputs.map((input) => (
            <Field key={input.identifier} label={`${input.name} (${input.identifier})`} required>
              <ValueInput
                spec={input.dataType}
                label={input.identifier}
                value={values[input.identifier] ?? ''}
                onChange={(v) => setValues((old) => ({ ...old, [input.identifier]: v }))}
              />
            </Field>
          ))}
          {fn && (
            <Field label={t('cmd.mode')}>
              <SelectInput
                value={mode}
                onChange={(v) => setMode(v as 'sync' | 'async')}
                name={t('cmd.mode')}
                options={[
                  { value: 'sync', label: t('cmd.sync') },
                  { value: 'async', label: t('cmd.async') },
                ]}
              />
            </Field>
          )}
          {error && (
            <Callout.Root color="red">
              <Callout.Text>{error}</Callout.Text>
            </Callout.Root>
          )}
          {reply && (
            <Callout.Root color={reply.status === 'replied' || reply.status === 'sent' ? 'green' : 'orange'} data-testid="command-result">
              <Callout.Text>
                {t(`cmd.${reply.status}`)}
                {reply.status === 'replied' && <Code ml="2">{json(reply.output)}</Code>}
              </Callout.Text>
            </Callout.Root>
          )}
        </Flex>
        <Flex justify="end" gap="2" mt="4">
          <Dialog.Close>
            <Button variant="soft" color="gray" disabled={busy}>
              {t('common.close')}
            </Button>
          </Dialog.Close>
          {fn?.type === 'property' && (
            <Button variant="soft" disabled={busy} onClick={() => void run(true)}>
              {t('cmd.setDesired')}
            </Button>
          )}
          <Button disabled={!fn || busy} loading={busy} onClick={() => void run(false)}>
            {t('cmd.submit')}
          </Button>
        </Flex>
      </Dialog.Content>
    </Dialog.Root>
  );
}

/** The device detail's commands tab: desired against reported state, the command dialog, and the recent commands. */
export function DeviceCommands({ deviceId, functions }: { deviceId: string; functions: Fn[] }) {
  const { t } = useTranslation();
  const me = useSession();
  const [open, setOpen] = useState(false);
  const commands = useQuery({
    queryKey: ['commands', deviceId],
    queryFn: () => callRoute('device.commands', { query: { id: deviceId } }),
    refetchInterval: 5_000,
  });
  const desired = useQuery({
    queryKey: ['desired', deviceId],
    queryFn: () => callRoute('device.desired', { query: { id: deviceId } }),
    refetchInterval: 5_000,
  });
  const names = new Map(functions.map((f) => [String(f.identifier), String(f.name)]));
  const shownDesired = (desired.data ?? []).filter((d) => d.desired !== null);
  return (
    <Flex direction="column" gap="3" mt="3">
      {can(me, devicePerm.deviceCommand) && (
        <Flex>
          <Button onClick={() => setOpen(true)}>{t('cmd.send')}</Button>
        </Flex>
      )}
      {open && <CommandDialog deviceId={deviceId} functions={functions} onClose={() => setOpen(false)} />}
      {shownDesired.length > 0 && (
        <>
          <Text weight="bold">{t('cmd.desired')}</Text>
          <Table.Root size="1" variant="surface" aria-label={t('cmd.desired')}>
            <Table.Header>
              <Table.Row>
                <Table.ColumnHeaderCell>{t('fleet.name')}</Table.ColumnHeaderCell>
                <Table.ColumnHeaderCell>{t('cmd.desiredValue')}</Table.ColumnHeaderCell>
                <Table.ColumnHeaderCell>{t('cmd.reportedValue')}</Table.ColumnHeaderCell>
                <Table.ColumnHeaderCell>{t('cmd.actor')}</Table.ColumnHeaderCell>
                <Table.ColumnHeaderCell>{t('cmd.status')}</Table.ColumnHeaderCell>
              </Table.Row>
            </Table.Header>
            <Table.Body>
              {shownDesired.map((d) => (
                <Table.Row key={d.identifier}>
                  <Table.Cell>
                    {d.name ?? d.identifier} ({d.identifier})
                  </Table.Cell>
                  <Table.Cell>{json(d.desired)}</Table.Cell>
                  <Table.Cell>{json(d.reported)}</Table.Cell>
                  <Table.Cell>{d.actorName ?? '--'}</Table.Cell>
                  <Table.Cell>
                    <Badge color={d.inSync ? 'green' : 'orange'}>{t(d.inSync ? 'cmd.inSync' : 'cmd.pending')}</Badge>
                  </Table.Cell>
                </Table.Row>
              ))}
            </Table.Body>
          </Table.Root>
        </>
      )}
      <Text weight="bold">{t('cmd.recent')}</Text>
      {commands.isError && <Text color="red">{messageOf(commands.error)}</Text>}
      {(commands.data ?? []).length === 0 ? (
        <Text color="gray">{t('common.noData')}</Text>
      ) : (
        <Table.Root size="1" variant="surface" aria-label={t('cmd.recent')}>
          <Table.Header>
            <Table.Row>
              <Table.ColumnHeaderCell>{t('fleet.time')}</Table.ColumnHeaderCell>
              <Table.ColumnHeaderCell>{t('cmd.actor')}</Table.ColumnHeaderCell>
              <Table.ColumnHeaderCell>{t('cmd.function')}</Table.ColumnHeaderCell>
              <Table.ColumnHeaderCell>{t('cmd.params')}</Table.ColumnHeaderCell>
              <Table.ColumnHeaderCell>{t('cmd.mode')}</Table.ColumnHeaderCell>
              <Table.ColumnHeaderCell>{t('cmd.status')}</Table.ColumnHeaderCell>
              <Table.ColumnHeaderCell>{t('cmd.output')}</Table.ColumnHeaderCell>
            </Table.Row>
          </Table.Header>
          <Table.Body>
            {(commands.data ?? []).map((c) => (
              <Table.Row key={c.messageId}>
                <Table.Cell>{formatDate(c.at, true)}</Table.Cell>
                <Table.Cell>{c.actorName ?? `${c.actorKind}`}</Table.Cell>
                <Table.Cell>
                  {names.get(c.identifier) ?? c.identifier} ({c.identifier})
                </Table.Cell>
                <Table.Cell>
                  <Code>{json(c.params)}</Code>
                </Table.Cell>
                <Table.Cell>{t(`cmd.${c.mode}`)}</Table.Cell>
                <Table.Cell>
                  <Badge color={c.status === 'replied' ? 'green' : c.status === 'sent' ? 'blue' : 'orange'}>
                    {t(`cmd.statuses.${c.status}`)}
                  </Badge>
                </Table.Cell>
                <Table.Cell>{c.output === null ? '--' : <Code>{json(c.output)}</Code>}</Table.Cell>
              </Table.Row>
            ))}
          </Table.Body>
        </Table.Root>
      )}
    </Flex>
  );
}

const toHex = (bytes: Uint8Array) => [...bytes].map((b) => b.toString(16).padStart(2, '0')).join(' ');
/** `01 03 00 00` or `01030000` as bytes; null when not whole hex bytes. */
function fromHex(text: string): Uint8Array | null {
  const clean = text.replace(/\s+/g, '');
  if (clean.length === 0 || clean.length % 2 !== 0 || !/^[0-9a-fA-F]+$/.test(clean)) return null;
  return Uint8Array.from(clean.match(/../g)!.map((h) => parseInt(h, 16)));
}
const toBase64 = (bytes: Uint8Array) => btoa(String.fromCharCode(...bytes));
const fromBase64 = (text: string) => Uint8Array.from(atob(text), (c) => c.charCodeAt(0));

type Frame = { key: number; direction: 'up' | 'down'; hex: string; at: string };
type PassthroughMessage =
  | { type: 'data'; deviceId: string; data: string; at: string }
  | { type: 'state'; deviceId: string; state: 'inProgress' | 'failed'; reason: string | null };

/** Pass-through for DTU-style devices (spec §4): raw bytes in hex to the device, its answers back, and the relay's state. */
export function Passthrough({ deviceId }: { deviceId: string }) {
  const { t } = useTranslation();
  const socket = useRef<WebSocket | null>(null);
  const counter = useRef(0);
  const [frames, setFrames] = useState<Frame[]>([]);
  const [state, setState] = useState<{ state: 'inProgress' | 'failed'; reason: string | null } | null>(null);
  const [text, setText] = useState('');
  const [error, setError] = useState<string | null>(null);
  const add = (direction: Frame['direction'], bytes: Uint8Array, at: string) =>
    setFrames((old) => [{ key: ++counter.current, direction, hex: toHex(bytes), at }, ...old].slice(0, 200));
  useEffect(() => {
    const ws = new WebSocket(channelUrl('device.passthrough', { deviceIds: deviceId }));
    ws.onmessage = (m) => {
      const message = JSON.parse(String(m.data)) as PassthroughMessage;
      if (message.type === 'data') add('up', fromBase64(message.data), message.at);
      else setState({ state: message.state, reason: message.reason });
    };
    socket.current = ws;
    return () => ws.close();
  }, [deviceId]);
  const send = () => {
    const bytes = fromHex(text);
    if (!bytes) return setError(t('cmd.badHex'));
    setError(null);
    socket.current?.send(JSON.stringify({ deviceId, data: toBase64(bytes) }));
    add('down', bytes, new Date().toISOString());
  };
  return (
    <Flex direction="column" gap="3" mt="3">
      <Flex gap="2" align="end">
        <div style={{ flex: 1 }}>
          <Field label={t('cmd.hexData')} error={error ?? undefined}>
            <TextField.Root
              aria-label={t('cmd.hexData')}
              value={text}
              onChange={(e) => setText(e.target.value)}
              placeholder="01 03 00 00 00 02 C4 0B"
            />
          </Field>
        </div>
        <Button onClick={send}>{t('cmd.submit')}</Button>
      </Flex>
      {state && (
        <Text data-testid="passthrough-state">
          <Badge color={state.state === 'inProgress' ? 'green' : 'red'}>
            {t(state.state === 'inProgress' ? 'cmd.inProgress' : 'cmd.failed')}
          </Badge>
          {state.reason ? ` ${state.reason}` : ''}
        </Text>
      )}
      <Table.Root size="1" variant="surface" aria-label={t('cmd.frames')}>
        <Table.Header>
          <Table.Row>
            <Table.ColumnHeaderCell>{t('fleet.time')}</Table.ColumnHeaderCell>
            <Table.ColumnHeaderCell>{t('cmd.direction')}</Table.ColumnHeaderCell>
            <Table.ColumnHeaderCell>{t('cmd.hexData')}</Table.ColumnHeaderCell>
          </Table.Row>
        </Table.Header>
        <Table.Body>
          {frames.map((f) => (
            <Table.Row key={f.key}>
              <Table.Cell>{formatDate(f.at, true)}</Table.Cell>
              <Table.Cell>{t(f.direction === 'up' ? 'cmd.up' : 'cmd.down')}</Table.Cell>
              <Table.Cell>
                <Code>{f.hex}</Code>
              </Table.Cell>
            </Table.Row>
          ))}
        </Table.Body>
      </Table.Root>
    </Flex>
  );
}
