import { useTranslation } from 'react-i18next';
import { TextField } from '@radix-ui/themes';
import { limits } from '@iot/contracts';
import { callRoute } from '../api/client.ts';
import { useBusy } from '../ui/crud.tsx';
import { notice } from '../ui/feedback.tsx';
import { Field, FormDialog, useForm, validate } from '../ui/form.tsx';
import { changePasswordForm, passwordRules } from './schemas.ts';

const empty = { oldPassword: '', newPassword: '', confirmPassword: '' };

export function ChangePasswordDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  const { t } = useTranslation();
  const form = useForm(empty);
  const { busy, run } = useBusy();
  const close = () => {
    form.reset(empty);
    onClose();
  };
  const submit = async () => {
    const checked = validate(changePasswordForm, form.values, t, passwordRules(t));
    if (!checked.ok) return form.setErrors(checked.errors);
    await run(async () => {
      await callRoute('user.changePassword', { body: { oldPassword: checked.data.oldPassword, newPassword: checked.data.newPassword } });
      notice.success(t('auth.passwordChanged'));
      close();
    });
  };
  const input = (name: keyof typeof empty, autoComplete: string) => (
    <TextField.Root {...form.input(name)} type="password" autoComplete={autoComplete} />
  );
  return (
    <FormDialog
      open={open}
      title={t('auth.changePassword')}
      dirty={form.dirty}
      busy={busy}
      onClose={close}
      onSubmit={() => void submit()}
      width="440px"
    >
      <Field label={t('auth.oldPassword')} required error={form.errors.oldPassword}>
        {input('oldPassword', 'current-password')}
      </Field>
      <Field
        label={t('auth.newPassword')}
        required
        error={form.errors.newPassword}
        hint={t('register.passwordHint', { min: limits.password.min, max: limits.password.max })}
      >
        {input('newPassword', 'new-password')}
      </Field>
      <Field label={t('auth.confirmPassword')} required error={form.errors.confirmPassword}>
        {input('confirmPassword', 'new-password')}
      </Field>
    </FormDialog>
  );
}
