import { useEffect, useState, useSyncExternalStore } from 'react';
import { useTranslation } from 'react-i18next';
import { AlertDialog, Button, Callout, Flex } from '@radix-ui/themes';
import { CheckCircledIcon, CrossCircledIcon, ExclamationTriangleIcon } from '@radix-ui/react-icons';
import { NOTICE_MS } from '@iot/contracts';

type Kind = 'success' | 'error' | 'warning';
interface Notice {
  id: number;
  kind: Kind;
  message: string;
}

let notices: Notice[] = [];
let nextId = 1;
const listeners = new Set<() => void>();
const emit = () => listeners.forEach((listener) => listener());

function push(kind: Kind, message: string): void {
  const id = nextId++;
  notices = [...notices, { id, kind, message }];
  emit();
  // Spec §8/§9: a notice lasts 3 seconds.
  setTimeout(() => {
    notices = notices.filter((n) => n.id !== id);
    emit();
  }, NOTICE_MS);
}

/** Success, error and warning notices titled 'operation tip' (操作提示). */
export const notice = {
  success: (message: string) => push('success', message),
  error: (message: string) => push('error', message),
  warning: (message: string) => push('warning', message),
};

const subscribe = (listener: () => void) => {
  listeners.add(listener);
  return () => listeners.delete(listener);
};

const colours = { success: 'green', error: 'red', warning: 'amber' } as const;
const icons = { success: CheckCircledIcon, error: CrossCircledIcon, warning: ExclamationTriangleIcon };

export function NoticeHost() {
  const { t } = useTranslation();
  const list = useSyncExternalStore(subscribe, () => notices);
  return (
    <div className="notice-host" role="status" aria-live="polite">
      {list.map((n) => {
        const Icon = icons[n.kind];
        return (
          <Callout.Root key={n.id} color={colours[n.kind]} variant="surface" className="notice" data-kind={n.kind}>
            <Callout.Icon>
              <Icon />
            </Callout.Icon>
            <div>
              <div className="notice-title">{t('common.operationTip')}</div>
              <Callout.Text>{n.message}</Callout.Text>
            </div>
          </Callout.Root>
        );
      })}
    </div>
  );
}

interface ConfirmRequest {
  title?: string;
  message: string;
  confirmLabel?: string;
  danger?: boolean;
  resolve: (ok: boolean) => void;
}
let pending: ConfirmRequest | null = null;
const confirmListeners = new Set<() => void>();

/** Asks the user to confirm; resolves true on confirm, false on cancel. */
export function confirm(request: Omit<ConfirmRequest, 'resolve'>): Promise<boolean> {
  return new Promise((resolve) => {
    pending = { ...request, resolve };
    confirmListeners.forEach((listener) => listener());
  });
}

export function ConfirmHost() {
  const { t } = useTranslation();
  const [request, setRequest] = useState<ConfirmRequest | null>(null);
  useEffect(() => {
    const listener = () => setRequest(pending);
    confirmListeners.add(listener);
    return () => {
      confirmListeners.delete(listener);
    };
  }, []);
  const close = (ok: boolean) => {
    request?.resolve(ok);
    pending = null;
    setRequest(null);
  };
  return (
    <AlertDialog.Root open={request !== null} onOpenChange={(open) => !open && close(false)}>
      <AlertDialog.Content maxWidth="420px">
        <AlertDialog.Title>{request?.title ?? t('common.confirmTitle')}</AlertDialog.Title>
        <AlertDialog.Description size="2">{request?.message}</AlertDialog.Description>
        <Flex gap="3" mt="4" justify="end">
          <AlertDialog.Cancel>
            <Button variant="soft" color="gray" onClick={() => close(false)}>
              {t('common.cancel')}
            </Button>
          </AlertDialog.Cancel>
          <AlertDialog.Action>
            <Button color={request?.danger ? 'red' : undefined} onClick={() => close(true)}>
              {request?.confirmLabel ?? t('common.confirm')}
            </Button>
          </AlertDialog.Action>
        </Flex>
      </AlertDialog.Content>
    </AlertDialog.Root>
  );
}
