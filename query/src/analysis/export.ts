import { excelJs } from '../shared/xlsx.ts';
import type { Lang } from '@iot/contracts';
import { rawAnswer, type RawAnswer } from '@iot/contracts/http/route.ts';
import { csvAnswer, csvCell } from '../shared/csv.ts';

/** Column titles of the statistics' exports, in the reader's language; a key without one is its own title. */
const titles: Record<Lang, Record<string, string>> = {
  zh: {
    groupName: '分组',
    groupType: '分组类型',
    alarms: '告警数',
    active: '未恢复',
    cleared: '已恢复',
    devices: '设备数',
    durationSeconds: '告警时长(秒)',
    meanClearSeconds: '平均恢复时间(秒)',
    deviceName: '设备名称',
    sn: 'SN',
    productName: '产品',
    level: '告警级别',
    day: '日期',
    name: '名称',
    type: '类型',
    location: '位置',
    parentName: '上级分组',
    online: '在线',
    offline: '离线',
    onlineRate: '在线率',
    activeAlarms: '当前告警',
    stationName: '电站',
    window: '周期',
    sharp: '尖(kWh)',
    peak: '峰(kWh)',
    flat: '平(kWh)',
    valley: '谷(kWh)',
    unpriced: '未计价(kWh)',
    kwh: '用电量(kWh)',
    cost: '电费',
    currency: '币种',
  },
  en: {
    groupName: 'Group',
    groupType: 'Group type',
    alarms: 'Alarms',
    active: 'Active',
    cleared: 'Cleared',
    devices: 'Devices',
    durationSeconds: 'Alarm time (s)',
    meanClearSeconds: 'Mean time to clear (s)',
    deviceName: 'Device',
    sn: 'SN',
    productName: 'Product',
    level: 'Alarm level',
    day: 'Day',
    name: 'Name',
    type: 'Type',
    location: 'Location',
    parentName: 'Parent group',
    online: 'Online',
    offline: 'Offline',
    onlineRate: 'Online rate',
    activeAlarms: 'Active alarms',
    stationName: 'Station',
    window: 'Period',
    sharp: 'Sharp (kWh)',
    peak: 'Peak (kWh)',
    flat: 'Flat (kWh)',
    valley: 'Valley (kWh)',
    unpriced: 'Unpriced (kWh)',
    kwh: 'Energy (kWh)',
    cost: 'Cost',
    currency: 'Currency',
  },
};

/** A small table (one statistic's rows, a page-bounded list) as a CSV or XLSX download with titles in the reader's language. */
export async function tableFile(
  format: 'csv' | 'xlsx',
  name: string,
  columns: readonly string[],
  rows: Record<string, unknown>[],
  lang: Lang,
): Promise<RawAnswer> {
  const headers = columns.map((c) => titles[lang][c] ?? c);
  if (format === 'csv') return csvAnswer(`${name}.csv`, columns, rows, headers);
  const book = new (await excelJs()).Workbook();
  const sheet = book.addWorksheet(name.slice(0, 31));
  sheet.columns = columns.map((key, i) => ({ header: headers[i], key, width: 18 }));
  for (const row of rows)
    sheet.addRow(Object.fromEntries(columns.map((c) => [c, row[c] === null || row[c] === undefined ? '' : csvCell(row[c])])));
  const bytes = new Uint8Array(await book.xlsx.writeBuffer());
  return rawAnswer('application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', bytes, `${name}.xlsx`);
}
