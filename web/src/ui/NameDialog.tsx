import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Button, Dialog, Flex, Text, TextField } from '@radix-ui/themes';
import { messageOf } from '../api/client.ts';
import { notice } from './feedback.tsx';

/** A name asked in a dialog (a new record, or a renamed one): trimmed, refused blank, an error shown as a notice. */
export function NameDialog({
  title,
  label,
  initial,
  onDone,
  onClose,
}: {
  title: string;
  /** The name field's label. */
  label: string;
  initial: string;
  onDone: (name: string) => Promise<void>;
  onClose: () => void;
}) {
  const { t } = useTranslation();
  const [name, setName] = useState(initial);
  const [busy, setBusy] = useState(false);
  return (
    <Dialog.Root open onOpenChange={(open) => !open && onClose()}>
      <Dialog.Content maxWidth="420px">
        <Dialog.Title>{title}</Dialog.Title>
        <form
          onSubmit={(e) => {
            e.preventDefault();
            setBusy(true);
            onDone(name.trim())
              .catch((error: unknown) => notice.error(messageOf(error)))
              .finally(() => setBusy(false));
          }}
        >
          <label>
            <Text size="2">{label}</Text>
            <TextField.Root aria-label={label} value={name} maxLength={64} required onChange={(e) => setName(e.target.value)} />
          </label>
          <Flex justify="end" gap="2" mt="3">
            <Dialog.Close>
              <Button type="button" variant="soft" color="gray">
                {t('common.cancel')}
              </Button>
            </Dialog.Close>
            <Button type="submit" disabled={busy || !name.trim()}>
              {t('common.confirm')}
            </Button>
          </Flex>
        </form>
      </Dialog.Content>
    </Dialog.Root>
  );
}
