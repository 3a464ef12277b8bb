import { useTranslation } from 'react-i18next';
import { Badge, Button, Select } from '@radix-ui/themes';

const statusColours: Record<string, 'green' | 'amber' | 'red' | 'gray' | 'blue'> = {
  enabled: 'green',
  approved: 'green',
  underReview: 'amber',
  rejected: 'red',
  stopped: 'gray',
};

/** A status as a coloured badge with its translated name (`status.<value>`). */
export function StatusBadge({ value }: { value: string }) {
  const { t } = useTranslation();
  return (
    <Badge color={statusColours[value] ?? 'blue'} variant="soft">
      {t(`status.${value}`)}
    </Badge>
  );
}

/** A select of fixed options; `placeholder` shows until one is picked. */
export function SelectInput({
  value,
  onChange,
  options,
  placeholder,
  name,
}: {
  value: string | null | undefined;
  onChange: (value: string) => void;
  options: Array<{ value: string; label: string }>;
  placeholder?: string;
  name?: string;
}) {
  return (
    <Select.Root value={value ?? undefined} onValueChange={onChange} name={name}>
      <Select.Trigger placeholder={placeholder} aria-label={name} style={{ width: '100%' }} />
      <Select.Content position="popper">
        {options.map((o) => (
          <Select.Item key={o.value} value={o.value}>
            {o.label}
          </Select.Item>
        ))}
      </Select.Content>
    </Select.Root>
  );
}

/** A text button in a table row. */
export function RowButton({ label, onClick, danger }: { label: string; onClick: () => void; danger?: boolean }) {
  return (
    <Button size="1" variant="ghost" color={danger ? 'red' : undefined} onClick={onClick}>
      {label}
    </Button>
  );
}
