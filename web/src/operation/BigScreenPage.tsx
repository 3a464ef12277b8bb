import './i18n.ts';
import './operation.css';
import '../alarm/i18n.ts';
import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Button, Text } from '@radix-ui/themes';
import { useQuery } from '@tanstack/react-query';
import type { EChartsOption } from 'echarts';
import type { BigScreen } from '@iot/contracts/operation/model.ts';
import { callRoute, messageOf } from '../api/client.ts';
import { useAlarmFeed } from '../alarm/common.tsx';
import { Chart } from '../analysis/Chart.tsx';
import { formatDate } from '../ui/format.ts';

const BIG_SCREEN = 'bigScreen';
const LEVEL_COLOURS = ['#8B8D98', '#3E7BFA', '#FFC53D', '#F76B15', '#E5484D'];
const TEXT = '#C9D6F2';
const AXIS = { axisLine: { lineStyle: { color: '#35508A' } }, axisLabel: { color: TEXT }, splitLine: { lineStyle: { color: '#1C2E57' } } };
const TREND_DAYS = 7;

/** The last seven days as the server cuts them (YYYY-MM-DD in the zone), oldest first. */
function lastDays(timeZone: string, now = new Date()): string[] {
  const day = new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' });
  return Array.from({ length: TREND_DAYS }, (_, i) => day.format(new Date(now.getTime() - (TREND_DAYS - 1 - i) * 86_400_000)));
}

function Panel({ title, children, testId }: { title: string; children: React.ReactNode; testId?: string }) {
  return (
    <section className="bs-panel" data-testid={testId}>
      <h2>{title}</h2>
      {children}
    </section>
  );
}

function Clock() {
  const [now, setNow] = useState(() => new Date());
  useEffect(() => {
    const timer = setInterval(() => setNow(new Date()), 1000);
    return () => clearInterval(timer);
  }, []);
  return <span className="bs-clock">{formatDate(now, true)}</span>;
}

/**
 * The data big screen (issue 20): a dark 1920×1080-friendly board of the tenant (the caller's group subtree) with
 * devices online and offline, active alarms by level, the last 7 days' trend, ingest rate, top alarm devices and the
 * latest alarms scrolling. Alarms refresh it over the alarm websocket; the rest every 10 seconds.
 */
export function BigScreenPage() {
  const { t } = useTranslation();
  const root = useRef<HTMLDivElement>(null);
  const [full, setFull] = useState(false);
  useAlarmFeed([BIG_SCREEN]);
  const timeZone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  const board = useQuery({
    queryKey: [BIG_SCREEN],
    queryFn: () => callRoute('operation.bigScreen', { query: { timeZone } }),
    refetchInterval: 10_000,
  });
  useEffect(() => {
    const change = () => setFull(document.fullscreenElement === root.current);
    document.addEventListener('fullscreenchange', change);
    return () => document.removeEventListener('fullscreenchange', change);
  }, []);
  const d: BigScreen | undefined = board.data;
  const toggle = () => {
    if (document.fullscreenElement) void document.exitFullscreen();
    else void root.current?.requestFullscreen?.().catch(() => undefined);
  };

  return (
    <div ref={root} className="big-screen" data-testid="big-screen">
      <header className="bs-header">
        <Clock />
        <h1>{t('bigScreen.title')}</h1>
        <span className="bs-actions">
          {d && (
            <span className="bs-clock">
              {t('bigScreen.updated')} {formatDate(d.dashboard.at, true)}
            </span>
          )}
          <Button size="1" variant="outline" onClick={toggle}>
            {full ? t('bigScreen.exitFullScreen') : t('bigScreen.fullScreen')}
          </Button>
        </span>
      </header>
      {board.isError ? (
        <Text color="red" role="alert" className="bs-message">
          {messageOf(board.error)}
        </Text>
      ) : !d ? (
        <Text className="bs-message">{t('common.loading')}</Text>
      ) : (
        <Board d={d} timeZone={timeZone} />
      )}
    </div>
  );
}

function Board({ d, timeZone }: { d: BigScreen; timeZone: string }) {
  const { t } = useTranslation();
  const { devices, alarms, dataPoints } = d.dashboard;
  const rate = devices.total > 0 ? `${Math.round((devices.online / devices.total) * 1000) / 10}%` : '--';
  const figures: Array<[string, string | number, string]> = [
    ['devices', devices.total, 'bs-devices'],
    ['online', devices.online, 'bs-online'],
    ['offline', devices.offline, 'bs-offline'],
    ['onlineRate', rate, 'bs-rate'],
    ['activeAlarms', alarms.active, 'bs-alarms'],
    ['todayAlarms', alarms.today, 'bs-today'],
    ['dataPoints', dataPoints.today.toLocaleString(), 'bs-points'],
    ['ingestRate', dataPoints.perSecond, 'bs-ingest'],
  ];
  const days = lastDays(timeZone);
  const byDay = new Map(d.trend.map((x) => [x.day, x]));
  const dark = { backgroundColor: 'transparent', textStyle: { color: TEXT } } satisfies EChartsOption;
  const statusOption: EChartsOption = {
    ...dark,
    tooltip: { trigger: 'item' },
    legend: { bottom: 0, textStyle: { color: TEXT } },
    color: ['#30A46C', '#8B8D98', '#E5484D'],
    series: [
      {
        type: 'pie',
        radius: ['45%', '70%'],
        center: ['50%', '45%'],
        label: { color: TEXT, formatter: '{b}: {c}' },
        data: [
          { name: t('bigScreen.online'), value: devices.online },
          { name: t('bigScreen.offline'), value: devices.offline },
          { name: t('dashboard.disabled'), value: devices.disabled },
        ],
      },
    ],
  };
  const levelOption: EChartsOption = {
    ...dark,
    tooltip: { trigger: 'axis' },
    grid: { left: 40, right: 16, top: 16, bottom: 32 },
    xAxis: {
      type: 'category',
      data: alarms.byLevel.map((l) => t(`alarm.levels.${l.level}`)),
      ...AXIS,
      axisLabel: { color: TEXT, interval: 0, fontSize: 11 },
    },
    yAxis: { type: 'value', minInterval: 1, ...AXIS },
    series: [
      { type: 'bar', barMaxWidth: 28, data: alarms.byLevel.map((l, i) => ({ value: l.count, itemStyle: { color: LEVEL_COLOURS[i] } })) },
    ],
  };
  const trendOption: EChartsOption = {
    ...dark,
    tooltip: { trigger: 'axis' },
    legend: { top: 0, textStyle: { color: TEXT } },
    grid: { left: 40, right: 16, top: 32, bottom: 28 },
    xAxis: { type: 'category', data: days.map((x) => x.slice(5)), boundaryGap: false, ...AXIS },
    yAxis: { type: 'value', minInterval: 1, ...AXIS },
    series: [
      {
        name: t('bigScreen.raised'),
        type: 'line',
        color: '#E5484D',
        areaStyle: { opacity: 0.15 },
        data: days.map((x) => byDay.get(x)?.alarms ?? 0),
      },
      { name: t('bigScreen.cleared'), type: 'line', color: '#30A46C', data: days.map((x) => byDay.get(x)?.cleared ?? 0) },
    ],
  };
  const top = [...d.topDevices].reverse();
  const topOption: EChartsOption = {
    ...dark,
    tooltip: { trigger: 'axis' },
    grid: { left: 120, right: 24, top: 8, bottom: 24 },
    xAxis: { type: 'value', minInterval: 1, ...AXIS },
    yAxis: {
      type: 'category',
      data: top.map((x) => x.deviceName ?? x.sn ?? x.deviceId),
      ...AXIS,
      axisLabel: { color: TEXT, width: 110, overflow: 'truncate' },
    },
    series: [{ type: 'bar', barMaxWidth: 18, color: '#F76B15', name: t('bigScreen.alarms'), data: top.map((x) => x.alarms) }],
  };
  const recent = d.dashboard.recentAlarms;
  const rateOption: EChartsOption = {
    ...dark,
    series: [
      {
        type: 'gauge',
        min: 0,
        max: 100,
        splitNumber: 5,
        progress: { show: true, width: 14, itemStyle: { color: '#30A46C' } },
        axisLine: { lineStyle: { width: 14, color: [[1, '#1C2E57']] } },
        axisTick: { show: false },
        splitLine: { length: 8, lineStyle: { color: '#35508A' } },
        axisLabel: { color: TEXT, distance: 18 },
        pointer: { show: false },
        title: { show: false },
        detail: { valueAnimation: false, formatter: '{value}%', color: '#4CC3FF', fontSize: 30, offsetCenter: [0, '10%'] },
        data: [{ value: devices.total > 0 ? Math.round((devices.online / devices.total) * 1000) / 10 : 0 }],
      },
    ],
  };

  return (
    <div className="bs-body">
      <div className="bs-figures">
        {figures.map(([key, value, testId]) => (
          <div key={key} className="bs-figure">
            <div className="bs-figure-label">{t(`bigScreen.${key}`)}</div>
            <div className="bs-figure-value" data-testid={testId}>
              {value}
            </div>
          </div>
        ))}
      </div>
      <div className="bs-grid">
        <Panel title={t('bigScreen.deviceStatus')}>
          <Chart label={t('bigScreen.deviceStatus')} count={3} height={260} option={statusOption} />
        </Panel>
        <Panel title={t('bigScreen.trend')} testId="bs-trend">
          <Chart label={t('bigScreen.trend')} count={TREND_DAYS} height={260} option={trendOption} />
        </Panel>
        <Panel title={t('bigScreen.alarmLevels')}>
          <Chart label={t('bigScreen.alarmLevels')} count={5} height={260} option={levelOption} />
        </Panel>
        <Panel title={t('bigScreen.topDevices')} testId="bs-top">
          {top.length === 0 ? (
            <p className="bs-empty">{t('bigScreen.noDevices')}</p>
          ) : (
            <Chart label={t('bigScreen.topDevices')} count={top.length} height={260} option={topOption} />
          )}
        </Panel>
        <Panel title={t('bigScreen.recentAlarms')} testId="bs-recent">
          {recent.length === 0 ? (
            <p className="bs-empty">{t('bigScreen.noAlarms')}</p>
          ) : (
            <div className="bs-ticker">
              {/* Twice, so that the scroll wraps without a jump. */}
              <ul className={recent.length > 5 ? 'bs-scroll' : undefined}>
                {[...recent, ...(recent.length > 5 ? recent : [])].map((a, i) => (
                  <li key={`${a.id}-${i}`}>
                    <span className="bs-level" style={{ background: LEVEL_COLOURS[a.level - 1] }}>
                      {t(`alarm.levels.${a.level}`)}
                    </span>
                    <span className="bs-device">{a.deviceName ?? a.sn ?? a.deviceId}</span>
                    <span className={a.status === 'active' ? 'bs-active' : 'bs-cleared'}>{t(`alarm.${a.status}`)}</span>
                    <span className="bs-time">{formatDate(a.raisedAt, true)}</span>
                  </li>
                ))}
              </ul>
            </div>
          )}
        </Panel>
        <Panel title={t('bigScreen.onlineRate')} testId="bs-rate-gauge">
          <Chart label={t('bigScreen.onlineRate')} count={1} height={260} option={rateOption} />
        </Panel>
      </div>
    </div>
  );
}
