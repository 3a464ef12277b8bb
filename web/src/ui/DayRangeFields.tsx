import { Text } from '@radix-ui/themes';
import { DateTimeInput } from './DateTimeInput.tsx';

/** A statistics screen's first and last day (the last included), each under its label: the filters' date range. */
export function DayRangeFields<R extends { from: string; to: string }>({
  value,
  onChange,
  labels,
}: {
  value: R;
  onChange(value: R): void;
  labels: { from: string; to: string };
}) {
  return (
    <>
      {(['from', 'to'] as const).map((end) => (
        <label key={end}>
          <Text as="div" size="1" color="gray">
            {labels[end]}
          </Text>
          <DateTimeInput kind="date" value={value[end]} aria-label={labels[end]} onChange={(day) => onChange({ ...value, [end]: day })} />
        </label>
      ))}
    </>
  );
}
