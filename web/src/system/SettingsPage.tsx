import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useQueryClient } from '@tanstack/react-query';
import { Button, Card, Flex, Heading, Text, TextField } from '@radix-ui/themes';
import { UploadIcon } from '@radix-ui/react-icons';
import { limits } from '@iot/contracts';
import { perm } from '@iot/contracts/identity/permissions.ts';
import { DEFAULT_SYSTEM_NAME } from '@iot/contracts/identity/settings.ts';
import { callRoute } from '../api/client.ts';
import { can } from '../api/session.ts';
import { useSession } from '../auth/useSession.ts';
import { SETTINGS_KEY, useSettings } from '../shell/useSettings.ts';
import { useBusy } from '../ui/crud.tsx';
import { notice } from '../ui/feedback.tsx';
import { Field, useForm, useRouteLeaveGuard, SubmitForm, checkBody } from '../ui/form.tsx';
import { checkLogo, scaleLogo } from './logo.ts';

export function SettingsPage() {
  const { t } = useTranslation();
  const me = useSession();
  const queryClient = useQueryClient();
  const { settings, logoUrl } = useSettings();
  const form = useForm({ systemName: '' });
  const { busy, run } = useBusy();
  const [preview, setPreview] = useState<{ url: string; blob: Blob } | null>(null);
  const [logoError, setLogoError] = useState<string>();
  const input = useRef<HTMLInputElement>(null);
  const editable = can(me, perm.settingsEdit);
  const loadedName =
    settings?.systemName && settings.systemName !== DEFAULT_SYSTEM_NAME ? settings.systemName : settings ? (settings.systemName ?? '') : '';

  useEffect(() => {
    form.reset({ systemName: loadedName });
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [loadedName]);

  const dirty = form.dirty || preview !== null;
  useRouteLeaveGuard(dirty);

  const pick = async (file: File | undefined) => {
    setLogoError(undefined);
    if (!file) return;
    const problem = await checkLogo(file);
    if (problem) {
      setLogoError(t(problem));
      notice.error(t(problem));
      return;
    }
    const blob = await scaleLogo(file);
    setPreview({ url: URL.createObjectURL(blob), blob });
  };

  const save = async () => {
    const checked = checkBody('settings.update', form.values, t, {
      systemName: t('validation.maxLength', { field: t('settings.systemName'), max: 64 }),
    });
    if (!checked.ok) return form.setErrors(checked.errors);
    await run(async () => {
      if (form.dirty) await callRoute(checked.route, { body: checked.data });
      if (preview) {
        await callRoute('settings.uploadLogo', { body: preview.blob });
        setPreview(null);
      }
      form.markSaved();
      notice.success(t('common.saved'));
      await queryClient.invalidateQueries({ queryKey: [SETTINGS_KEY] });
    });
  };

  return (
    <Card size="3" style={{ maxWidth: 720 }}>
      <Heading size="4" mb="4">
        {t('menu.settings')}
      </Heading>
      <SubmitForm onSubmit={save}>
        <Flex direction="column" gap="4">
          <Field label={t('settings.systemName')} required error={form.errors.systemName} hint={t('settings.systemNameHint')}>
            <TextField.Root {...form.input('systemName')} disabled={!editable} placeholder={t('brand.name')} />
          </Field>
          <Field label={t('settings.logo')} error={logoError} hint={t('settings.logoHint', { height: limits.logo.height })}>
            <Flex align="center" gap="4">
              <div className="logo-preview">
                <img src={preview?.url ?? logoUrl} alt={t('settings.logo')} height={limits.logo.height} />
              </div>
              <input
                ref={input}
                type="file"
                accept="image/png"
                hidden
                data-testid="logo-input"
                onChange={(e) => void pick(e.target.files?.[0])}
              />
              {editable && (
                <Button type="button" variant="soft" onClick={() => input.current?.click()}>
                  <UploadIcon />
                  {t('settings.chooseLogo')}
                </Button>
              )}
              {preview && (
                <Text size="2" color="gray">
                  {t('settings.logoPending')}
                </Text>
              )}
            </Flex>
          </Field>
          {editable && (
            <Flex gap="3">
              <Button type="submit" loading={busy} disabled={!dirty}>
                {t('common.save')}
              </Button>
              <Button
                type="button"
                variant="soft"
                color="gray"
                disabled={!dirty}
                onClick={() => {
                  form.reset({ systemName: loadedName });
                  setPreview(null);
                  setLogoError(undefined);
                }}
              >
                {t('common.reset')}
              </Button>
            </Flex>
          )}
        </Flex>
      </SubmitForm>
    </Card>
  );
}
