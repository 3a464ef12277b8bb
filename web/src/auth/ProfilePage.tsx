import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Avatar, Button, Card, DataList, Flex, Heading, Text, TextArea, TextField } from '@radix-ui/themes';
import { LockClosedIcon } from '@radix-ui/react-icons';
import { sexes, type UserRow } from '@iot/contracts/identity/user.ts';
import { messageOf, callRoute } from '../api/client.ts';
import { useTitle } from '../shell/Layout.tsx';
import { flatten } from '../shell/menu.ts';
import { useMenu } from '../shell/useMenu.ts';
import { userRules } from '../system/UsersPage.tsx';
import { labelled, useBusy } from '../ui/crud.tsx';
import { notice } from '../ui/feedback.tsx';
import { Field, useForm, useRouteLeaveGuard, SubmitForm, checkBody } from '../ui/form.tsx';
import { display, formatDate } from '../ui/format.ts';
import { SelectInput, StatusBadge } from '../ui/widgets.tsx';
import { ChangePasswordDialog } from './ChangePasswordDialog.tsx';

const PROFILE_KEY = 'profile';
const empty = { sex: '', email: '', phone: '', position: '', description: '', homePage: '' };
type Values = typeof empty;

const valuesOf = (row: UserRow): Values => ({
  sex: row.sex,
  email: row.email ?? '',
  phone: row.phone ?? '',
  position: row.position ?? '',
  description: row.description ?? '',
  homePage: row.homePage ?? '',
});

/** The body of `PUT user/profile`: empty optional fields travel as null. */
export const profilePayload = (v: Values) => ({
  sex: v.sex,
  email: v.email.trim(),
  phone: v.phone.trim(),
  position: v.position || null,
  description: v.description || null,
  homePage: v.homePage || null,
});

/** The logged-in user's own details: contact fields and home page they may change, the rest read only. */
export function ProfilePage() {
  const { t } = useTranslation();
  const title = useTitle();
  const queryClient = useQueryClient();
  const menu = useMenu();
  const profile = useQuery({ queryKey: [PROFILE_KEY], retry: false, queryFn: () => callRoute('user.profile', {}) });
  const form = useForm<Values>(empty);
  const { busy, run } = useBusy();
  const [passwordOpen, setPasswordOpen] = useState(false);
  const { reset } = form;
  useEffect(() => {
    if (profile.data) reset(valuesOf(profile.data));
  }, [profile.data, reset]);
  useRouteLeaveGuard(form.dirty);

  const save = async () => {
    const checked = checkBody('user.updateProfile', profilePayload(form.values), t, userRules(t));
    if (!checked.ok) return form.setErrors(checked.errors);
    await run(async () => {
      await callRoute(checked.route, { body: checked.data });
      form.markSaved();
      notice.success(t('common.saved'));
      await queryClient.invalidateQueries({ queryKey: [PROFILE_KEY] });
    });
  };

  const row = profile.data;
  const screens = flatten(menu.data ?? []).filter((n) => n.path && !n.children?.length);
  const text = (name: 'email' | 'phone' | 'position', type = 'text') => (
    <TextField.Root {...form.input(name)} type={type as 'text'} placeholder={t(`user.${name}Placeholder`)} />
  );

  if (profile.error) return <Text color="red">{messageOf(profile.error)}</Text>;
  return (
    <Flex gap="4" align="start" wrap="wrap">
      <Card size="3" style={{ width: 300 }}>
        <Flex direction="column" align="center" gap="2" mb="4">
          <Avatar size="6" radius="full" fallback={(row?.username ?? '?').slice(0, 1).toUpperCase()} />
          <Heading size="4" data-testid="profile-username">
            {row?.username ?? ''}
          </Heading>
          {row && <StatusBadge value={row.status} />}
        </Flex>
        <DataList.Root size="2">
          <DataList.Item>
            <DataList.Label minWidth="80px">{t('user.group')}</DataList.Label>
            <DataList.Value>{display(row?.groupName)}</DataList.Value>
          </DataList.Item>
          <DataList.Item>
            <DataList.Label minWidth="80px">{t('user.roles')}</DataList.Label>
            <DataList.Value>{display(row?.roleNames.join(', '))}</DataList.Value>
          </DataList.Item>
          <DataList.Item>
            <DataList.Label minWidth="80px">{t('user.createdAt')}</DataList.Label>
            <DataList.Value>{formatDate(row?.createdAt)}</DataList.Value>
          </DataList.Item>
        </DataList.Root>
        <Button mt="4" variant="soft" style={{ width: '100%' }} onClick={() => setPasswordOpen(true)}>
          <LockClosedIcon />
          {t('auth.changePassword')}
        </Button>
      </Card>
      <Card size="3" style={{ flex: 1, minWidth: 420, maxWidth: 720 }}>
        <Heading size="4" mb="4">
          {t('menu.profile')}
        </Heading>
        <SubmitForm onSubmit={save}>
          <div className="form-grid">
            <div className="form-grid two">
              <Field label={t('user.sex')} required error={form.errors.sex}>
                <SelectInput {...form.select('sex')} placeholder={t('common.selectPlaceholder')} options={labelled(t, 'sex', sexes)} />
              </Field>
              <Field label={t('user.position')} error={form.errors.position}>
                {text('position')}
              </Field>
              <Field label={t('user.email')} required error={form.errors.email}>
                {text('email', 'email')}
              </Field>
              <Field label={t('user.phone')} required error={form.errors.phone}>
                {text('phone', 'tel')}
              </Field>
            </div>
            <Field label={t('profile.homePage')} error={form.errors.homePage} hint={t('profile.homePageHint')}>
              <SelectInput
                {...form.select('homePage')}
                placeholder={t('menu.home')}
                options={screens.map((n) => ({ value: n.path!, label: title(n.title) }))}
              />
            </Field>
            <Field label={t('user.description')} error={form.errors.description}>
              <TextArea {...form.input('description')} />
            </Field>
          </div>
          <Flex gap="3" mt="4">
            <Button type="submit" loading={busy} disabled={!form.dirty}>
              {t('common.save')}
            </Button>
            <Button type="button" variant="soft" color="gray" disabled={!form.dirty} onClick={() => row && reset(valuesOf(row))}>
              {t('common.reset')}
            </Button>
          </Flex>
        </SubmitForm>
      </Card>
      <ChangePasswordDialog open={passwordOpen} onClose={() => setPasswordOpen(false)} />
    </Flex>
  );
}
