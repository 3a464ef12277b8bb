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

/** A longitude or latitude to 6 decimals (about 10 cm), without the float's noise (121.49369999999999). */
export const formatCoordinate = (value: number | null | undefined): string =>
  value === null || value === undefined || !Number.isFinite(value) ? EMPTY : String(Number(value.toFixed(6)));

/** A location as `lng, lat`, each to 6 decimals. */
export const formatLocation = (lng: number | null | undefined, lat: number | null | undefined): string | null =>
  lng === null || lng === undefined ? null : `${formatCoordinate(lng)}, ${formatCoordinate(lat)}`;

export function display(value: unknown): string {
  if (isEmpty(value)) return EMPTY;
  if (typeof value === 'boolean') return value ? '✓' : '✗';
  return String(value);
}
