import { useState } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { useTranslation } from 'react-i18next';
import { Button, Checkbox, Dialog, Flex, Text, TextField } from '@radix-ui/themes';
import { messageOf, callRoute } from '../api/client.ts';
import { notice } from '../ui/feedback.tsx';
import { Field, useForm, validate, SubmitForm } from '../ui/form.tsx';
import { AuthFrame } from './AuthFrame.tsx';
import { loginForm, loginRules } from './schemas.ts';
import { sessionStore } from './useSession.ts';

const REMEMBER_KEY = 'rememberAccount';

export function AgreementDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  const { t } = useTranslation();
  return (
    <Dialog.Root open={open} onOpenChange={(o) => !o && onClose()}>
      <Dialog.Content maxWidth="560px">
        <Dialog.Title>{t('login.agreementTitle')}</Dialog.Title>
        <Dialog.Description size="2">{t('login.agreementText')}</Dialog.Description>
        <Flex justify="end" mt="4">
          <Dialog.Close>
            <Button>{t('common.close')}</Button>
          </Dialog.Close>
        </Flex>
      </Dialog.Content>
    </Dialog.Root>
  );
}

export function LoginPage() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const [search] = useSearchParams();
  const remembered = localStorage.getItem(REMEMBER_KEY);
  const form = useForm({ account: remembered ?? '', password: '', agreement: false, remember: remembered !== null });
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<string | null>(null);
  const [agreementOpen, setAgreementOpen] = useState(false);

  const submit = async () => {
    setFailure(null);
    const { remember, ...values } = form.values;
    const checked = validate(loginForm, values, t, loginRules(t));
    if (!checked.ok) return form.setErrors(checked.errors);
    setBusy(true);
    try {
      const result = await callRoute('auth.login', { body: checked.data }, { noRedirect: true });
      if (remember) localStorage.setItem(REMEMBER_KEY, checked.data.account);
      else localStorage.removeItem(REMEMBER_KEY);
      sessionStore.login(result.token, result.user);
      const back = search.get('redirect');
      void navigate(back && back.startsWith('/') && !back.startsWith('//') ? back : (result.user.homePage ?? '/index'), { replace: true });
    } catch (error) {
      const message = messageOf(error);
      setFailure(message);
      notice.error(message);
    } finally {
      setBusy(false);
    }
  };

  return (
    <AuthFrame title={t('login.title')}>
      <SubmitForm onSubmit={submit}>
        <Flex direction="column" gap="3">
          <Field label={t('login.account')} required error={form.errors.account}>
            <TextField.Root {...form.input('account')} autoComplete="username" placeholder={t('login.accountPlaceholder')} />
          </Field>
          <Field label={t('login.password')} required error={form.errors.password}>
            <TextField.Root
              {...form.input('password')}
              type="password"
              autoComplete="current-password"
              placeholder={t('login.passwordPlaceholder')}
            />
          </Field>
          <Text as="label" size="2">
            <Flex gap="2" align="center">
              <Checkbox
                name="remember"
                data-testid="remember"
                checked={form.values.remember}
                onCheckedChange={(v) => form.set('remember', v === true)}
              />
              {t('login.remember')}
            </Flex>
          </Text>
          <div>
            <Text as="label" size="2">
              <Flex gap="2" align="center" wrap="wrap">
                <Checkbox
                  name="agreement"
                  data-testid="agreement"
                  checked={form.values.agreement}
                  onCheckedChange={(v) => form.set('agreement', v === true)}
                />
                {t('login.agreePrefix')}
                <button type="button" className="link-button" onClick={() => setAgreementOpen(true)}>
                  {t('login.agreementTitle')}
                </button>
              </Flex>
            </Text>
            {form.errors.agreement && (
              <Text as="div" size="1" color="red" role="alert" mt="1">
                {form.errors.agreement}
              </Text>
            )}
          </div>
          {failure && (
            <Text size="2" color="red" role="alert" data-testid="login-error">
              {failure}
            </Text>
          )}
          <Button type="submit" size="3" loading={busy}>
            {t('login.submit')}
          </Button>
          <Flex justify="center" gap="1">
            <Text size="2" color="gray">
              {t('login.noAccount')}
            </Text>
            <Link to="/register" className="text-link">
              {t('login.register')}
            </Link>
          </Flex>
        </Flex>
      </SubmitForm>
      <AgreementDialog open={agreementOpen} onClose={() => setAgreementOpen(false)} />
    </AuthFrame>
  );
}
