import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Checkbox, Flex, Text, TextArea, TextField } from '@radix-ui/themes';
import { limits } from '@iot/contracts';
import { perm } from '@iot/contracts/identity/permissions.ts';
import { sexes, userStatuses, type UserRow } from '@iot/contracts/identity/user.ts';
import { ApiError, callRoute, messageOf } from '../api/client.ts';
import { useSession } from '../auth/useSession.ts';
import { notice } from '../ui/feedback.tsx';
import {
  createdAtColumn,
  crudActions,
  labelled,
  PermittedRowButton,
  useBusy,
  useListChange,
  useListDelete,
  useRecordDialog,
  statusColumn,
} from '../ui/crud.tsx';
import { checkBody, Field, FormDialog } from '../ui/form.tsx';
import { ListPage, NEWEST_FIRST, type ListColumn } from '../ui/ListPage.tsx';
import { SelectInput } from '../ui/widgets.tsx';
import { treeOptions, useGroups, useRoles } from './lookups.ts';

const KEY = 'users';
const empty = {
  id: '',
  username: '',
  password: '',
  sex: '',
  email: '',
  phone: '',
  roleIds: [] as string[],
  status: 'enabled',
  position: '',
  groupId: '',
  description: '',
};
type Values = typeof empty;

export function userRules(t: (key: string, options?: Record<string, unknown>) => string): Record<string, string> {
  return {
    username: t('validation.username', { min: limits.username.min, max: limits.username.max }),
    password: t('validation.passwordLength', { min: limits.password.min, max: limits.password.max }),
    email: t('validation.email'),
    phone: t('validation.phone'),
    'sex.empty': t('validation.selectRequired'),
    'roleIds.empty': t('validation.selectRequired'),
    roleIds: t('validation.selectRequired'),
    'status.empty': t('validation.selectRequired'),
  };
}

/** The body the server expects, from the form's values. */
export function userPayload(values: Values, creating: boolean) {
  const { id, password, ...rest } = values;
  const body = {
    ...rest,
    groupId: rest.groupId || null,
    position: rest.position || null,
    description: rest.description || null,
    homePage: null,
  };
  return creating ? { ...body, password } : { id, ...body };
}

function UserDialog({ editing, onClose }: { editing: UserRow | 'new' | null; onClose: () => void }) {
  const { t } = useTranslation();
  const roles = useRoles();
  const groups = useGroups();
  const creating = editing === 'new';
  const { form, run, done, dialog } = useRecordDialog<Values, UserRow | 'new'>({
    editing,
    empty,
    queryKey: KEY,
    onClose,
    valuesOf: (e) =>
      e && e !== 'new'
        ? {
            // Only the form's own fields: a row's read-only ones (group name, created at, ...) would make the
            // strict update schema refuse the body, and the save do nothing.
            ...empty,
            id: e.id,
            username: e.username,
            sex: e.sex,
            roleIds: e.roleIds,
            status: e.status,
            email: e.email ?? '',
            phone: e.phone ?? '',
            position: e.position ?? '',
            groupId: e.groupId ?? '',
            description: e.description ?? '',
            password: '',
          }
        : empty,
  });
  const submit = async () => {
    const body = userPayload(form.values, creating);
    const checked = checkBody(creating ? 'user.create' : 'user.update', body, t, userRules(t));
    if (!checked.ok) return form.setErrors(checked.errors);
    await run(
      async () => {
        await callRoute(checked.route, { body: checked.data });
        await done(t(creating ? 'common.created' : 'common.saved'));
      },
      (error) => {
        if (error instanceof ApiError && error.code === 'USERNAME_TAKEN') form.setErrors({ username: error.message });
        else notice.error(messageOf(error));
      },
    );
  };
  const v = form.values;
  const text = (name: 'username' | 'password' | 'email' | 'phone' | 'position', type = 'text') => (
    <TextField.Root {...form.input(name)} type={type as 'text'} placeholder={t(`user.${name}Placeholder`)} />
  );
  return (
    <FormDialog {...dialog} title={t(creating ? 'user.add' : 'user.edit')} onSubmit={() => void submit()} width="640px">
      <div className="form-grid two">
        <Field label={t('user.username')} required error={form.errors.username}>
          {text('username')}
        </Field>
        {creating ? (
          <Field label={t('user.password')} required error={form.errors.password}>
            {text('password', 'password')}
          </Field>
        ) : (
          <div />
        )}
        <Field label={t('user.sex')} required error={form.errors.sex}>
          <SelectInput {...form.select('sex')} placeholder={t('common.selectPlaceholder')} options={labelled(t, 'sex', sexes)} />
        </Field>
        <Field label={t('user.status')} required error={form.errors.status}>
          <SelectInput {...form.select('status')} options={labelled(t, 'status', userStatuses)} />
        </Field>
        <Field label={t('user.email')} required error={form.errors.email}>
          {text('email', 'email')}
        </Field>
        <Field label={t('user.phone')} required error={form.errors.phone}>
          {text('phone', 'tel')}
        </Field>
        <Field label={t('user.group')} error={form.errors.groupId}>
          <SelectInput
            {...form.select('groupId')}
            placeholder={t('common.selectPlaceholder')}
            options={treeOptions(groups.data ?? [], (g) => g.name)}
          />
        </Field>
        <Field label={t('user.position')} error={form.errors.position}>
          {text('position')}
        </Field>
      </div>
      <Field label={t('user.roles')} required error={form.errors.roleIds}>
        <Flex gap="3" wrap="wrap" className="checkbox-group" data-testid="user-roles">
          {(roles.data ?? []).length === 0 && (
            <Text size="2" color="gray">
              {t('user.noRoles')}
            </Text>
          )}
          {(roles.data ?? []).map((role) => (
            <Text as="label" size="2" key={role.id}>
              <Flex gap="1" align="center">
                <Checkbox
                  checked={v.roleIds.includes(role.id)}
                  onCheckedChange={(c) =>
                    form.set('roleIds', c === true ? [...v.roleIds, role.id] : v.roleIds.filter((r) => r !== role.id))
                  }
                />
                {role.name}
              </Flex>
            </Text>
          ))}
        </Flex>
      </Field>
      <Field label={t('user.description')} error={form.errors.description}>
        <TextArea {...form.input('description')} />
      </Field>
    </FormDialog>
  );
}

function ResetPasswordDialog({ user, onClose }: { user: UserRow | null; onClose: () => void }) {
  const { t } = useTranslation();
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string>();
  const { busy, run } = useBusy();
  return (
    <FormDialog
      open={user !== null}
      title={t('user.resetPasswordOf', { name: user?.username ?? '' })}
      dirty={password !== ''}
      busy={busy}
      onClose={() => {
        setPassword('');
        setError(undefined);
        onClose();
      }}
      onSubmit={async () => {
        const checked = checkBody('user.resetPassword', { id: user?.id, password }, t, userRules(t));
        if (!checked.ok) return setError(checked.errors.password);
        await run(async () => {
          await callRoute(checked.route, { body: checked.data });
          notice.success(t('user.passwordReset'));
          setPassword('');
          onClose();
        });
      }}
    >
      <Field
        label={t('user.newPassword')}
        required
        error={error}
        hint={t('register.passwordHint', { min: limits.password.min, max: limits.password.max })}
      >
        <TextField.Root type="password" name="newPassword" value={password} onChange={(e) => setPassword(e.target.value)} />
      </Field>
    </FormDialog>
  );
}

export function UsersPage() {
  const { t } = useTranslation();
  const me = useSession();
  const change = useListChange(KEY);
  const deleteRows = useListDelete(KEY);
  const [editing, setEditing] = useState<UserRow | 'new' | null>(null);
  const [resetting, setResetting] = useState<UserRow | null>(null);
  const remove = (rows: UserRow[]) =>
    deleteRows(t('user.deleteConfirm', { names: rows.map((r) => r.username).join(', ') }), () =>
      // The route deletes one user (`id`): a selection is deleted one by one.
      rows.reduce<Promise<unknown>>(
        (previous, row) => previous.then(() => callRoute('user.delete', { query: { id: row.id } })),
        Promise.resolve(),
      ),
    );
  const setStatus = (row: UserRow, status: 'enabled' | 'stopped') => {
    const stopping = status === 'stopped';
    return change(() => callRoute('user.status', { body: { id: row.id, status } }), t(stopping ? 'user.stopped' : 'user.started'), {
      message: t(stopping ? 'user.stopConfirm' : 'user.startConfirm', { name: row.username }),
      danger: stopping,
      confirmLabel: t(stopping ? 'user.stop' : 'user.start'),
    });
  };
  // Nobody stops or deletes themselves or the tenant's administrator from this list.
  const protectedRow = (row: UserRow) => row.isTenantAdmin || row.id === me?.id;
  const columns: ListColumn<UserRow>[] = [
    { id: 'username', header: t('user.username'), value: (r) => r.username, sortable: true, width: 130 },
    { id: 'sex', header: t('user.sex'), value: (r) => t(`sex.${r.sex}`), width: 70 },
    { id: 'email', header: t('user.email'), value: (r) => r.email, width: 170 },
    { id: 'phone', header: t('user.phone'), value: (r) => r.phone, width: 120 },
    { id: 'position', header: t('user.position'), value: (r) => r.position, sortable: true, width: 100 },
    { id: 'group', header: t('user.group'), value: (r) => r.groupName, width: 110 },
    { id: 'roles', header: t('user.roles'), value: (r) => r.roleNames.join(', '), width: 130 },
    statusColumn(t, t('user.status'), 80, true),
    createdAtColumn(t('user.createdAt')),
  ];
  return (
    <>
      <ListPage<UserRow>
        queryKey={KEY}
        route="user.list"
        exportName={t('menu.user')}
        columns={columns}
        defaultSort={NEWEST_FIRST}
        filters={[
          { name: 'username', label: t('user.username') },
          {
            name: 'status',
            label: t('user.status'),
            type: 'select',
            options: labelled(t, 'status', userStatuses),
          },
        ]}
        actions={crudActions<UserRow>(
          t,
          { add: perm.userAdd, edit: perm.userEdit, delete: perm.userDelete },
          { add: () => setEditing('new'), edit: setEditing, remove },
        )}
        rowActions={(row) => (
          <>
            <PermittedRowButton permission={perm.userEdit} label={t('common.edit')} onClick={() => setEditing(row)} />
            <PermittedRowButton permission={perm.userResetPassword} label={t('user.resetPassword')} onClick={() => setResetting(row)} />
            {!protectedRow(row) && (
              <PermittedRowButton
                permission={perm.userEdit}
                label={t(row.status === 'stopped' ? 'user.start' : 'user.stop')}
                danger={row.status !== 'stopped'}
                onClick={() => void setStatus(row, row.status === 'stopped' ? 'enabled' : 'stopped')}
              />
            )}
            {!protectedRow(row) && (
              <PermittedRowButton permission={perm.userDelete} label={t('common.delete')} danger onClick={() => void remove([row])} />
            )}
          </>
        )}
      />
      <UserDialog editing={editing} onClose={() => setEditing(null)} />
      <ResetPasswordDialog user={resetting} onClose={() => setResetting(null)} />
    </>
  );
}
