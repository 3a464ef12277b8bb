import { useEffect, useState } from 'react';
import { Link } from 'react-router';
import { useTranslation } from 'react-i18next';
import { Button, Callout, Flex, SegmentedControl, TextField } from '@radix-ui/themes';
import { CheckCircledIcon } from '@radix-ui/react-icons';
import { limits } from '@iot/contracts';
import { messageOf, callRoute } from '../api/client.ts';
import { notice } from '../ui/feedback.tsx';
import { Field, useForm, useLeaveGuard, validate, SubmitForm } from '../ui/form.tsx';
import { AuthFrame } from './AuthFrame.tsx';
import { registerForm, registerRules, targetOf } from './schemas.ts';

type Method = 'phone' | 'email';

const initial = {
  tenantName: '',
  contactName: '',
  company: '',
  method: 'phone' as Method,
  target: '',
  code: '',
  password: '',
  confirmPassword: '',
};

/** What the server receives: the phone or the email, by method. */
export function registerPayload(values: typeof initial) {
  const { target, confirmPassword: _confirm, ...rest } = values;
  return { ...rest, [values.method]: target.trim() };
}

/** The draft survives in-app navigation (to the agreement, to login and back); secrets never go to storage. */
const DRAFT_KEY = 'register.draft';
function savedDraft(): typeof initial {
  try {
    const stored = JSON.parse(sessionStorage.getItem(DRAFT_KEY) ?? '{}') as Partial<typeof initial>;
    const kept = Object.fromEntries(Object.entries(stored).filter(([k, v]) => k in initial && typeof v === 'string'));
    return { ...initial, ...kept, password: '', confirmPassword: '', code: '' };
  } catch {
    return initial;
  }
}

export function RegisterPage() {
  const { t } = useTranslation();
  const form = useForm(savedDraft());
  useEffect(() => {
    const { password: _p, confirmPassword: _c, code: _code, ...draft } = form.values;
    sessionStorage.setItem(DRAFT_KEY, JSON.stringify(draft));
  }, [form.values]);
  const [busy, setBusy] = useState(false);
  const [sending, setSending] = useState(false);
  const [countdown, setCountdown] = useState(0);
  const [done, setDone] = useState(false);
  useLeaveGuard(form.dirty && !done);

  useEffect(() => {
    if (countdown <= 0) return;
    const timer = setTimeout(() => setCountdown((c) => c - 1), 1000);
    return () => clearTimeout(timer);
  }, [countdown]);

  const rules = registerRules(t);
  const sendCode = async () => {
    const { method, target } = form.values;
    if (!targetOf(method).safeParse(target.trim()).success) {
      form.setErrors({ ...form.errors, target: target.trim() === '' ? t('validation.required') : rules[method]! });
      return;
    }
    setSending(true);
    try {
      const result = await callRoute('tenant.sendCode', { body: { method, target: target.trim() } }, { noRedirect: true });
      setCountdown(result.resendAfter ?? 60);
      notice.success(t(method === 'phone' ? 'register.codeSentPhone' : 'register.codeSentEmail'));
    } catch (error) {
      notice.error(messageOf(error));
    } finally {
      setSending(false);
    }
  };

  const submit = async () => {
    const payload = registerPayload(form.values);
    const checked = validate(registerForm, payload, t, rules);
    const errors = checked.ok ? {} : { ...checked.errors };
    const targetError = errors[form.values.method];
    if (targetError) errors.target = form.values.target.trim() === '' ? t('validation.required') : targetError;
    if (form.values.confirmPassword !== form.values.password) errors.confirmPassword = rules.confirmPassword!;
    if (Object.keys(errors).length > 0) return form.setErrors(errors);
    setBusy(true);
    try {
      await callRoute('tenant.register', { body: payload }, { noRedirect: true });
      setDone(true);
      sessionStorage.removeItem(DRAFT_KEY);
    } catch (error) {
      notice.error(messageOf(error));
    } finally {
      setBusy(false);
    }
  };

  if (done) {
    return (
      <AuthFrame title={t('register.title')}>
        <Callout.Root color="green" mb="4">
          <Callout.Icon>
            <CheckCircledIcon />
          </Callout.Icon>
          <Callout.Text data-testid="register-done">
            {t(form.values.method === 'phone' ? 'register.submittedPhone' : 'register.submittedEmail')}
          </Callout.Text>
        </Callout.Root>
        <Link to="/login" className="text-link">
          {t('register.backToLogin')}
        </Link>
      </AuthFrame>
    );
  }

  const text = (
    name: 'tenantName' | 'contactName' | 'company' | 'code' | 'password' | 'confirmPassword',
    type = 'text',
    extra: Record<string, unknown> = {},
  ) => <TextField.Root {...form.input(name)} type={type as 'text'} placeholder={t(`register.${name}Placeholder`)} {...extra} />;

  return (
    <AuthFrame title={t('register.title')} wide>
      <SubmitForm onSubmit={submit}>
        <div className="form-grid two">
          <Field
            label={t('register.tenantName')}
            required
            error={form.errors.tenantName}
            hint={t('register.tenantNameHint', { min: limits.tenantName.min, max: limits.tenantName.max })}
          >
            {text('tenantName')}
          </Field>
          <Field label={t('register.contactName')} required error={form.errors.contactName}>
            {text('contactName')}
          </Field>
          <Field label={t('register.company')} error={form.errors.company}>
            {text('company')}
          </Field>
          <Field label={t('register.method')} required error={form.errors.method}>
            <SegmentedControl.Root
              value={form.values.method}
              onValueChange={(v) => {
                form.set('method', v as Method);
                form.set('target', '');
                setCountdown(0);
              }}
            >
              <SegmentedControl.Item value="phone">{t('register.byPhone')}</SegmentedControl.Item>
              <SegmentedControl.Item value="email">{t('register.byEmail')}</SegmentedControl.Item>
            </SegmentedControl.Root>
          </Field>
          <Field label={t(form.values.method === 'phone' ? 'register.phone' : 'register.email')} required error={form.errors.target}>
            <TextField.Root
              {...form.input('target')}
              type={form.values.method === 'phone' ? 'tel' : 'email'}
              placeholder={t(form.values.method === 'phone' ? 'register.phonePlaceholder' : 'register.emailPlaceholder')}
            />
          </Field>
          <Field label={t('register.code')} required error={form.errors.code}>
            <Flex gap="2">
              {text('code', 'text', { inputMode: 'numeric', maxLength: limits.verificationCodeLength, style: { flex: 1 } })}
              <Button
                type="button"
                variant="soft"
                disabled={countdown > 0}
                loading={sending}
                onClick={() => void sendCode()}
                data-testid="send-code"
              >
                {countdown > 0 ? t('register.resendIn', { seconds: countdown }) : t('register.sendCode')}
              </Button>
            </Flex>
          </Field>
          <Field
            label={t('register.password')}
            required
            error={form.errors.password}
            hint={t('register.passwordHint', { min: limits.password.min, max: limits.password.max })}
          >
            {text('password', 'password', { autoComplete: 'new-password' })}
          </Field>
          <Field label={t('register.confirmPassword')} required error={form.errors.confirmPassword}>
            {text('confirmPassword', 'password', { autoComplete: 'new-password' })}
          </Field>
        </div>
        <Flex direction="column" gap="3" mt="4">
          <Button type="submit" size="3" loading={busy}>
            {t('register.submit')}
          </Button>
          <Flex justify="center">
            <Link to="/login" className="text-link">
              {t('register.haveAccount')}
            </Link>
          </Flex>
        </Flex>
      </SubmitForm>
    </AuthFrame>
  );
}
