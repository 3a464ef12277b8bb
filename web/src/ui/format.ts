/** Spec §9: empty values show '--'. */
export const EMPTY = '--';

export function isEmpty(value: unknown): boolean {
  return value === null || value === undefined || value === '' || (Array.isArray(value) && value.length === 0);
}

const pad = (n: number) => String(n).padStart(2, '0');

/** Spec §9: dates are YYYY-MM-DD (with the time when asked). */
export function formatDate(value: string | number | Date | null | undefined, withTime = false): string {
  if (isEmpty(value)) return EMPTY;
  const date = value instanceof Date ? value : new Date(value as string | number);
  if (Number.isNaN(date.getTime())) return EMPTY;
  const day = `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
  return withTime ? `${day} ${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}` : day;
}

export function display(value: unknown): string {
  if (isEmpty(value)) return EMPTY;
  if (typeof value === 'boolean') return value ? '✓' : '✗';
  return String(value);
}
