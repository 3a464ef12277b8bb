import type ExcelJS from 'exceljs';

let loaded: Promise<typeof ExcelJS> | null = null;

/**
 * ExcelJS, loaded on the first XLSX a handler writes: its code (several MB of heap) is not in the memory of a
 * platform that never exports one.
 */
export function excelJs(): Promise<typeof ExcelJS> {
  loaded ??= import('exceljs').then((module) => module.default);
  return loaded;
}
