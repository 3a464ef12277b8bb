import { formulaSafe } from '@iot/contracts';
export interface ExportColumn<T> {
  header: string;
  value: (row: T) => string | number | null;
}

/** Hands a file to the browser as a download. */
export function saveBlob(blob: Blob, fileName: string): void {
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = fileName;
  document.body.appendChild(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

/** Formula-safe (as the server's exports: text a spreadsheet would evaluate escaped, numbers left alone), then quoted. */
const csvCell = (value: string | number | null) => {
  const text = value === null ? '' : String(formulaSafe(value));
  return /[",\n\r]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
};

/** RFC 4180 CSV with a BOM so that Excel opens Chinese text correctly. */
export function toCsv<T>(rows: T[], columns: ExportColumn<T>[]): string {
  const lines = [columns.map((c) => csvCell(c.header)).join(',')];
  for (const row of rows) lines.push(columns.map((c) => csvCell(c.value(row))).join(','));
  return '\uFEFF' + lines.join('\r\n');
}

export async function exportRows<T>(format: 'csv' | 'xlsx', rows: T[], columns: ExportColumn<T>[], baseName: string): Promise<void> {
  if (format === 'csv') {
    saveBlob(new Blob([toCsv(rows, columns)], { type: 'text/csv;charset=utf-8' }), `${baseName}.csv`);
    return;
  }
  const data = [
    columns.map((c) => ({ value: c.header, fontWeight: 'bold' as const })),
    ...rows.map((row) => columns.map((c) => ({ value: c.value(row) ?? '' }))),
  ];
  // Loaded on the first Excel export only: most visits never need it.
  const { default: writeXlsxFile } = await import('write-excel-file/browser');
  saveBlob(await writeXlsxFile(data).toBlob(), `${baseName}.xlsx`);
}
