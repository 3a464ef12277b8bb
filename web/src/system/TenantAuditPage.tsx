import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { TextArea } from '@radix-ui/themes';
import { tenantStatuses, type TenantRow } from '@iot/contracts';
import { perm } from '@iot/contracts/identity/permissions.ts';
import { messageOf, callRoute } from '../api/client.ts';
import { can } from '../api/session.ts';
import { useSession } from '../auth/useSession.ts';
import { confirm, notice } from '../ui/feedback.tsx';
import { Field, FormDialog } from '../ui/form.tsx';
import { formatDate } from '../ui/format.ts';
import { ListPage, useRefresh, type ListColumn } from '../ui/ListPage.tsx';
import { statusColumn } from '../ui/crud.tsx';
import { RowButton } from '../ui/widgets.tsx';

const KEY = 'tenants';

/** Spec §2/§4: the administrator approves or rejects tenant registrations, and stops or restarts tenants. */
export function TenantAuditPage() {
  const { t } = useTranslation();
  const user = useSession();
  const refresh = useRefresh(KEY);
  const [rejecting, setRejecting] = useState<TenantRow | null>(null);
  const [reason, setReason] = useState('');
  const [busy, setBusy] = useState(false);

  const run = async (work: () => Promise<unknown>, success: string) => {
    try {
      await work();
      notice.success(success);
      await refresh();
    } catch (error) {
      notice.error(messageOf(error));
    }
  };
  const approve = async (row: TenantRow) => {
    if (await confirm({ message: t('tenant.approveConfirm', { name: row.name }) }))
      await run(() => callRoute('tenant.approve', { body: { id: row.id } }), t('tenant.approved'));
  };
  const toggle = async (row: TenantRow) => {
    const stop = row.status === 'approved';
    if (await confirm({ message: t(stop ? 'tenant.stopConfirm' : 'tenant.startConfirm', { name: row.name }), danger: stop }))
      await run(() => callRoute(stop ? 'tenant.stop' : 'tenant.start', { body: { id: row.id } }), t('common.success'));
  };

  const columns: ListColumn<TenantRow>[] = [
    { id: 'name', header: t('tenant.name'), value: (r) => r.name, sortable: true, width: 160 },
    { id: 'contactName', header: t('tenant.contactName'), value: (r) => r.contactName, width: 110 },
    { id: 'company', header: t('tenant.company'), value: (r) => r.company, width: 160 },
    { id: 'phone', header: t('tenant.phone'), value: (r) => r.phone, width: 120 },
    { id: 'email', header: t('tenant.email'), value: (r) => r.email, width: 170 },
    {
      id: 'registerMethod',
      header: t('tenant.registerMethod'),
      value: (r) => t(`register.by${r.registerMethod === 'phone' ? 'Phone' : 'Email'}`),
      width: 100,
    },
    statusColumn(t, t('tenant.status'), 90, true),
    { id: 'applyTime', header: t('tenant.applyTime'), value: (r) => formatDate(r.applyTime), sortable: true, width: 110 },
    { id: 'auditTime', header: t('tenant.auditTime'), value: (r) => formatDate(r.auditTime), sortable: true, width: 110 },
    { id: 'rejectReason', header: t('tenant.rejectReason'), value: (r) => r.rejectReason, width: 140 },
  ];

  return (
    <>
      <ListPage<TenantRow>
        queryKey={KEY}
        route="tenant.list"
        exportName={t('menu.tenantAudit')}
        selectable={false}
        columns={columns}
        defaultSort={{ sort: 'applyTime', order: 'desc' }}
        filters={[
          { name: 'name', label: t('tenant.name') },
          {
            name: 'status',
            label: t('tenant.status'),
            type: 'select',
            options: tenantStatuses.map((s) => ({ value: s, label: t(`status.${s}`) })),
          },
        ]}
        rowActions={(row) =>
          can(user, perm.tenantAudit) ? (
            row.status === 'underReview' ? (
              <>
                <RowButton label={t('tenant.approve')} onClick={() => void approve(row)} />
                <RowButton
                  label={t('tenant.reject')}
                  danger
                  onClick={() => {
                    setReason('');
                    setRejecting(row);
                  }}
                />
              </>
            ) : row.status === 'approved' || row.status === 'stopped' ? (
              <RowButton
                label={t(row.status === 'approved' ? 'tenant.stop' : 'tenant.start')}
                danger={row.status === 'approved'}
                onClick={() => void toggle(row)}
              />
            ) : (
              <span className="muted">--</span>
            )
          ) : null
        }
      />
      <FormDialog
        open={rejecting !== null}
        title={t('tenant.rejectTitle', { name: rejecting?.name ?? '' })}
        dirty={reason !== ''}
        busy={busy}
        submitLabel={t('tenant.reject')}
        danger
        onClose={() => setRejecting(null)}
        onSubmit={async () => {
          if (!rejecting) return;
          setBusy(true);
          await run(
            () => callRoute('tenant.reject', { body: { id: rejecting.id, reason: reason.trim() || undefined } }),
            t('tenant.rejected'),
          );
          setBusy(false);
          setRejecting(null);
        }}
      >
        <Field label={t('tenant.rejectReason')} hint={t('tenant.rejectHint')}>
          <TextArea name="reason" value={reason} maxLength={256} onChange={(e) => setReason(e.target.value)} />
        </Field>
      </FormDialog>
    </>
  );
}
