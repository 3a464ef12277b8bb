import { useCallback, useEffect, useMemo, useState, type ReactNode } from 'react';
import { useBlocker } from 'react-router';
import { useTranslation } from 'react-i18next';
import type { TFunction } from 'i18next';
import type { z } from 'zod';
import { routes, type Routes } from '@iot/contracts';
import type { BodyIn, RouteSpec } from '@iot/contracts/http/route.ts';
import type { BodyRoute } from '../api/client.ts';
import { Button, Dialog, Flex, Text } from '@radix-ui/themes';
import { confirm } from './feedback.tsx';

export type Errors = Record<string, string>;
type TextKey<V> = { [K in keyof V]: V[K] extends string ? K : never }[keyof V] & string;

/** Nothing entered: no value, blank text, or nothing picked (an empty list of contacts or send ways). */
export const blank = (value: unknown) =>
  value === undefined ||
  value === null ||
  (typeof value === 'string' && value.trim() === '') ||
  (Array.isArray(value) && value.length === 0);

/**
 * Checks `values` with a zod schema (the contracts' own where one exists) and turns each issue into a
 * translated message: 'required' when the field is empty, else the field's own rule text from `rules`.
 */
export function validate<T>(
  schema: z.ZodType<T>,
  values: Record<string, unknown>,
  t: TFunction,
  rules: Record<string, string> = {},
): { ok: true; data: T } | { ok: false; errors: Errors } {
  const result = schema.safeParse(values);
  if (result.success) return { ok: true, data: result.data };
  const errors: Errors = {};
  for (const issue of result.error.issues) {
    const field = String(issue.path[0] ?? '_');
    if (errors[field]) continue;
    errors[field] = blank(values[field])
      ? (rules[`${field}.empty`] ?? t('validation.required'))
      : (rules[field] ?? t('validation.invalid'));
  }
  return { ok: false, errors };
}

/** A form's values checked by the body schema of the route they go to: sent as `callRoute(route, { body: data })`. */
export type CheckedBody<N extends BodyRoute> =
  (N extends BodyRoute ? { ok: true; route: N; data: BodyIn<Routes[N]> } : never) | { ok: false; errors: Errors };

/**
 * Checks a form's values by the body schema of the route that takes them (STYLE.md "One contract, two ends"), with
 * the messages of `validate`: the data is that route's body, typed by the table, and names the route it goes to.
 */
export function checkBody<N extends BodyRoute>(
  route: N,
  values: Record<string, unknown>,
  t: TFunction,
  rules: Record<string, string> = {},
): CheckedBody<N> {
  const spec: RouteSpec = routes[route];
  const body = spec.body;
  if (!body) throw new Error(`${route} takes no body`);
  const checked = validate(body, values, t, rules);
  // What the route's own schema accepted is its body: the schema's output, sent as the input the server parses again.
  return checked.ok ? ({ ok: true, route, data: checked.data } as CheckedBody<N>) : checked;
}

/** Form state: values, errors and whether anything changed since it opened. */
export function useForm<V extends Record<string, unknown>>(initial: V) {
  const [values, setValues] = useState<V>(initial);
  const [start, setStart] = useState<V>(initial);
  const [errors, setErrors] = useState<Errors>({});
  const set = useCallback(<K extends keyof V>(name: K, value: V[K]) => {
    setValues((v) => ({ ...v, [name]: value }));
    setErrors((e) => {
      if (!e[name as string]) return e;
      const { [name as string]: _removed, ...rest } = e;
      return rest;
    });
  }, []);
  const reset = useCallback((next: V) => {
    setValues(next);
    setStart(next);
    setErrors({});
  }, []);
  const dirty = useMemo(() => JSON.stringify(values) !== JSON.stringify(start), [values, start]);
  /** Props binding a text input or text area to a string field. */
  const input = <K extends TextKey<V>>(name: K) => ({
    name,
    value: values[name] as string,
    onChange: (event: { target: { value: string } }) => set(name, event.target.value as V[K]),
  });
  /** Props binding a `SelectInput` to a string field; an empty one shows the placeholder. */
  const select = <K extends TextKey<V>>(name: K) => ({
    name,
    value: (values[name] as string) || null,
    onChange: (value: string) => set(name, value as V[K]),
  });
  return { values, set, errors, setErrors, dirty, reset, markSaved: () => setStart(values), input, select };
}

/** Asks before throwing away unsaved changes; resolves true when it is fine to leave. */
export function useLeaveGuard(dirty: boolean) {
  const { t } = useTranslation();
  useEffect(() => {
    if (!dirty) return;
    const handler = (event: BeforeUnloadEvent) => event.preventDefault();
    window.addEventListener('beforeunload', handler);
    return () => window.removeEventListener('beforeunload', handler);
  }, [dirty]);
  return useCallback(
    async () =>
      dirty
        ? confirm({ title: t('common.unsavedTitle'), message: t('common.unsavedMessage'), confirmLabel: t('common.leave'), danger: true })
        : true,
    [dirty, t],
  );
}

/** A page with a form: asks before the router leaves it (a menu click, a tab, back) with unsaved changes. */
export function useRouteLeaveGuard(dirty: boolean) {
  const { t } = useTranslation();
  useLeaveGuard(dirty);
  const blocker = useBlocker(dirty);
  useEffect(() => {
    if (blocker.state !== 'blocked') return;
    void confirm({
      title: t('common.unsavedTitle'),
      message: t('common.unsavedMessage'),
      confirmLabel: t('common.leave'),
      danger: true,
    }).then((ok) => (ok ? blocker.proceed() : blocker.reset()));
  }, [blocker, t]);
}

export function Field({
  label,
  required,
  error,
  children,
  hint,
}: {
  label: string;
  required?: boolean;
  error?: string;
  children: ReactNode;
  hint?: string;
}) {
  return (
    <label className="field" data-invalid={error ? 'true' : undefined}>
      <Text as="div" size="2" weight="medium" className="field-label">
        {required && <span className="required">*</span>}
        {label}
      </Text>
      {children}
      {error ? (
        <Text as="div" size="1" color="red" className="field-error" role="alert">
          {error}
        </Text>
      ) : hint ? (
        <Text as="div" size="1" color="gray" className="field-hint">
          {hint}
        </Text>
      ) : null}
    </label>
  );
}

/** A form the app validates itself (`noValidate`): submitting calls `onSubmit` instead of reloading the page. */
export function SubmitForm({ onSubmit, children }: { onSubmit: () => unknown; children: ReactNode }) {
  return (
    <form
      noValidate
      onSubmit={(event) => {
        event.preventDefault();
        void onSubmit();
      }}
    >
      {children}
    </form>
  );
}

/** A dialog holding a form: asks before closing with unsaved changes. */
export function FormDialog({
  open,
  title,
  dirty,
  busy,
  onClose,
  onSubmit,
  children,
  width = '520px',
  submitLabel,
  danger = false,
}: {
  open: boolean;
  title: string;
  dirty: boolean;
  busy?: boolean;
  onClose: () => void;
  onSubmit: () => void;
  children: ReactNode;
  width?: string;
  submitLabel?: string;
  /** The submit button is red: the dialog does something that cannot be taken back (reject, stop). */
  danger?: boolean;
}) {
  const { t } = useTranslation();
  const guard = useLeaveGuard(open && dirty);
  const close = async () => {
    if (await guard()) onClose();
  };
  return (
    <Dialog.Root open={open} onOpenChange={(next) => !next && void close()}>
      <Dialog.Content maxWidth={width} aria-describedby={undefined}>
        <Dialog.Title>{title}</Dialog.Title>
        <SubmitForm onSubmit={onSubmit}>
          <div className="form-grid">{children}</div>
          <Flex gap="3" mt="4" justify="end">
            <Button type="button" variant="soft" color="gray" onClick={() => void close()}>
              {t('common.cancel')}
            </Button>
            <Button type="submit" loading={busy} color={danger ? 'red' : undefined}>
              {submitLabel ?? t('common.save')}
            </Button>
          </Flex>
        </SubmitForm>
      </Dialog.Content>
    </Dialog.Root>
  );
}
