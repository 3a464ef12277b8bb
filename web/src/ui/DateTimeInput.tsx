import { useEffect, useRef, useState, type CSSProperties } from 'react';
import { useTranslation } from 'react-i18next';
import { IconButton, TextField } from '@radix-ui/themes';
import { CalendarIcon, ClockIcon } from '@radix-ui/react-icons';

/** What the input holds: a local date and time, a date, or a time of day. */
export type DateTimeKind = 'datetime' | 'date' | 'time';

/**
 * The shapes typed text may take (a `T` or a space between date and time; seconds optional). Values go in and out as
 * the browser's own date inputs give them (`2026-11-25T15:24`, `2026-11-25`, `15:24`), so callers keep their parsing.
 */
const shapes: Record<DateTimeKind, RegExp> = {
  datetime: /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2}))?$/,
  date: /^(\d{4})-(\d{2})-(\d{2})$/,
  time: /^()()()(\d{2}):(\d{2})(?::(\d{2}))?$/,
};
const nativeType = { datetime: 'datetime-local', date: 'date', time: 'time' } as const;
const example = { datetime: '2026-11-25 15:24', date: '2026-11-25', time: '15:24' } as const;

/** The value for typed text ('' for none), or null when the text is no real date or time. */
export function parseDateTimeText(kind: DateTimeKind, text: string): string | null {
  const trimmed = text.trim();
  if (trimmed === '') return '';
  const m = shapes[kind].exec(trimmed);
  if (!m) return null;
  const [, y, mo, d, h, mi, s] = m;
  if (kind !== 'time') {
    const day = new Date(Date.UTC(Number(y), Number(mo) - 1, Number(d)));
    if (day.getUTCFullYear() !== Number(y) || day.getUTCMonth() !== Number(mo) - 1 || day.getUTCDate() !== Number(d)) return null;
  }
  if (kind !== 'date' && (Number(h) > 23 || Number(mi) > 59 || Number(s ?? 0) > 59)) return null;
  const time = `${h}:${mi}${s === undefined ? '' : `:${s}`}`;
  return kind === 'date' ? `${y}-${mo}-${d}` : kind === 'time' ? time : `${y}-${mo}-${d}T${time}`;
}

/** How a value reads: the app's one format in both languages (`2026-11-25 15:24`), not the browser's locale. */
export const dateTimeText = (value: string) => value.replace('T', ' ');

/**
 * A date, date-time or time input that shows the app's format whatever the browser's locale (a native date input
 * follows the browser's: `11/25/2026, 03:24 AM` on an English browser showing a Chinese screen). Typed text is
 * checked as it is typed; the button opens the browser's own picker.
 */
export function DateTimeInput(props: {
  kind?: DateTimeKind;
  value: string;
  onChange(value: string): void;
  /** Seconds can be picked (a query's bounds). */
  seconds?: boolean;
  name?: string;
  'aria-label'?: string;
  'data-testid'?: string;
  style?: CSSProperties;
}) {
  const { t } = useTranslation();
  const kind = props.kind ?? 'datetime';
  const [text, setText] = useState(dateTimeText(props.value));
  const picker = useRef<HTMLInputElement>(null);
  // A value set from outside (a reset, a picked date) shows; text being typed that means the same stays as typed.
  useEffect(() => {
    setText((typed) => (parseDateTimeText(kind, typed) === props.value ? typed : dateTimeText(props.value)));
  }, [props.value, kind]);
  const invalid = parseDateTimeText(kind, text) === null;
  return (
    <TextField.Root
      name={props.name}
      aria-label={props['aria-label']}
      data-testid={props['data-testid']}
      aria-invalid={invalid || undefined}
      color={invalid ? 'red' : undefined}
      title={invalid ? t('validation.dateTimeFormat', { example: example[kind] }) : undefined}
      placeholder={example[kind]}
      inputMode="numeric"
      style={{ minWidth: kind === 'datetime' ? 190 : 130, ...props.style }}
      value={text}
      onChange={(e) => {
        setText(e.target.value);
        const value = parseDateTimeText(kind, e.target.value);
        if (value !== null && value !== props.value) props.onChange(value);
      }}
    >
      <TextField.Slot side="right">
        <IconButton
          type="button"
          size="1"
          variant="ghost"
          aria-label={t('common.pickDate')}
          onClick={() => {
            const input = picker.current;
            if (!input) return;
            input.value = props.value;
            try {
              input.showPicker();
            } catch {
              input.focus();
            }
          }}
        >
          {kind === 'time' ? <ClockIcon /> : <CalendarIcon />}
        </IconButton>
        <input
          ref={picker}
          type={nativeType[kind]}
          step={props.seconds ? 1 : undefined}
          tabIndex={-1}
          aria-hidden
          style={{ position: 'absolute', width: 0, height: 0, opacity: 0, border: 0, padding: 0, pointerEvents: 'none' }}
          onChange={(e) => props.onChange(e.target.value)}
        />
      </TextField.Slot>
    </TextField.Root>
  );
}
