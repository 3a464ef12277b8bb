import './diagram.css';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Handle, Position, type Node, type NodeProps } from '@xyflow/react';
import { builtinElements, type TopoElementRow } from '@iot/contracts/diagram/topo-element.ts';
import type { DiagramRow, DiagramValue, WidgetKind } from '@iot/contracts/diagram/model.ts';
import { imageUrl } from './TopoElements.tsx';

export type Widget = DiagramRow['widgets'][number];
export type WidgetData = {
  widget: Widget;
  value: DiagramValue | undefined;
  editing: boolean;
  labels: Record<WidgetKind, string>;
  element: TopoElementRow | undefined;
  /** A switch's click in view mode: asks, then sends its command. */
  onSwitch: ((widget: Widget, on: boolean) => void) | null;
  busy: boolean;
};
export type WidgetNode = Node<WidgetData, 'widget'>;

const OFF = '#4A4F5C';
const ON = '#30A46C';
const ACCENT = '#4CC3FF';
const TEXT = '#E6EFFF';
const MUTED = '#8FB0F0';

/** On at its value, or at any non-zero value when none is set: a lit lamp, a running pump, an open valve, a flowing pipe. */
export const isOn = (w: Widget, v: DiagramValue | undefined) =>
  v?.value != null && (w.onValue === null ? v.value !== 0 : v.value === w.onValue);

/** The colour of the highest threshold the value has reached (none below the lowest). */
export function thresholdColour(w: Widget, v: DiagramValue | undefined): string | null {
  if (v?.value == null) return null;
  const reached = [...w.thresholds].sort((a, b) => a.value - b.value).filter((th) => v.value! >= th.value);
  return reached.at(-1)?.color ?? null;
}

/** The default size of a widget kind on the canvas (the SCADA ones from the contract, the topo element's own). */
export function defaultSize(kind: WidgetKind, element: TopoElementRow | undefined): [number, number] | null {
  if (kind === 'element') return element ? [element.width, element.height] : [100, 60];
  if (kind === 'text') return null;
  return kind in builtinElements ? [...builtinElements[kind as keyof typeof builtinElements]] : null;
}

/** The share of a range a value fills (0..1). */
const shareOf = (w: Widget, v: DiagramValue | undefined) => {
  const min = w.min ?? 0;
  const max = w.max ?? 100;
  return v?.value == null ? 0 : Math.min(1, Math.max(0, (v.value - min) / (max - min)));
};

function HalfGauge({ widget, value, colour }: { widget: Widget; value: DiagramValue | undefined; colour: string }) {
  const share = shareOf(widget, value);
  // A half circle: the arc's end at the share of 180 degrees.
  const angle = Math.PI * (1 - share);
  const [x, y] = [50 + 40 * Math.cos(angle), 50 - 40 * Math.sin(angle)];
  return (
    <svg width="100%" height="70" viewBox="0 0 100 58" aria-hidden>
      <path d="M10 50 A40 40 0 0 1 90 50" fill="none" stroke="#2A3F6E" strokeWidth="8" />
      {share > 0 && <path d={`M10 50 A40 40 0 0 1 ${x.toFixed(2)} ${y.toFixed(2)}`} fill="none" stroke={colour} strokeWidth="8" />}
      <text x="10" y="58" fontSize="7" fill={MUTED}>
        {widget.min ?? 0}
      </text>
      <text x="90" y="58" fontSize="7" fill={MUTED} textAnchor="end">
        {widget.max ?? 100}
      </text>
    </svg>
  );
}

/** A round dial with a needle over 270 degrees. */
function Meter({ widget, value, colour }: { widget: Widget; value: DiagramValue | undefined; colour: string }) {
  const share = shareOf(widget, value);
  const angle = ((-225 + 270 * share) * Math.PI) / 180;
  const [x, y] = [50 + 30 * Math.cos(angle), 50 + 30 * Math.sin(angle)];
  return (
    <svg width="100%" height="100%" viewBox="0 0 100 100" aria-hidden>
      <circle cx="50" cy="50" r="42" fill="#0E2147" stroke={colour} strokeWidth="4" />
      <path d="M23.5 76.5 A37 37 0 1 1 76.5 76.5" fill="none" stroke="#2A3F6E" strokeWidth="3" />
      <line x1="50" y1="50" x2={x.toFixed(2)} y2={y.toFixed(2)} stroke={colour} strokeWidth="3" strokeLinecap="round" />
      <circle cx="50" cy="50" r="4" fill={colour} />
    </svg>
  );
}

function Pump({ on, colour }: { on: boolean; colour: string }) {
  return (
    <svg width="100%" height="100%" viewBox="0 0 100 100" aria-hidden>
      <rect x="8" y="80" width="84" height="12" rx="2" fill="#2A3F6E" />
      <rect x="70" y="18" width="26" height="16" fill={colour} />
      <circle cx="48" cy="48" r="34" fill="#0E2147" stroke={colour} strokeWidth="6" />
      <g className={on ? 'diagram-spin' : undefined}>
        {[0, 90, 180, 270].map((a) => (
          <path key={a} d="M48 48 L48 22 Q60 30 48 48" fill={colour} transform={`rotate(${a} 48 48)`} />
        ))}
      </g>
      <circle cx="48" cy="48" r="5" fill={TEXT} />
    </svg>
  );
}

function Valve({ on, colour }: { on: boolean; colour: string }) {
  return (
    <svg width="100%" height="100%" viewBox="0 0 100 100" aria-hidden>
      <rect x="44" y="12" width="12" height="28" fill={MUTED} />
      <rect x="28" y="6" width="44" height="10" rx="3" fill={colour} transform={on ? undefined : 'rotate(90 50 11)'} />
      <path d="M8 42 L50 66 L8 90 Z M92 42 L50 66 L92 90 Z" fill={colour} stroke={TEXT} strokeWidth="2" />
    </svg>
  );
}

function Tank({ share, colour }: { share: number; colour: string }) {
  const top = 12 + 80 * (1 - share);
  return (
    <svg width="100%" height="100%" viewBox="0 0 100 100" preserveAspectRatio="none" aria-hidden>
      <rect x="10" y="8" width="80" height="88" rx="10" fill="#0E2147" stroke={MUTED} strokeWidth="3" />
      {share > 0 && <rect x="13" y={top} width="74" height={92 - top} rx="6" fill={colour} opacity="0.85" />}
    </svg>
  );
}

function Pipe({ on, colour }: { on: boolean; colour: string }) {
  return (
    <svg width="100%" height="100%" viewBox="0 0 200 30" preserveAspectRatio="none" aria-hidden>
      <rect x="0" y="4" width="200" height="22" rx="4" fill="#2A3F6E" stroke={MUTED} strokeWidth="2" />
      <line
        x1="4"
        y1="15"
        x2="196"
        y2="15"
        stroke={on ? colour : OFF}
        strokeWidth="8"
        strokeDasharray="14 10"
        className={on ? 'diagram-flow' : undefined}
      />
    </svg>
  );
}

function SwitchFace({ on }: { on: boolean }) {
  return (
    <svg width="64" height="34" viewBox="0 0 64 34" aria-hidden>
      <rect x="1" y="1" width="62" height="32" rx="16" fill={on ? ON : OFF} stroke={TEXT} strokeWidth="1" />
      <circle cx={on ? 47 : 17} cy="17" r="12" fill={TEXT} />
    </svg>
  );
}

/**
 * One widget on the canvas: its title, then the kind's picture driven by the bound value (on/off animation, a fill
 * level, a needle), coloured by the highest threshold reached; a switch sends its command when clicked in view mode.
 */
export function WidgetView({ data, selected }: NodeProps<WidgetNode>) {
  const { t } = useTranslation();
  const { widget, value, element } = data;
  const bound = widget.deviceId !== null && widget.property !== null;
  const on = isOn(widget, value);
  const colour = thresholdColour(widget, value) ?? (on ? ON : ACCENT);
  const size = widget.width !== null && widget.height !== null ? [widget.width, widget.height] : defaultSize(widget.kind, element);
  const display = (
    <div style={{ fontSize: 13, fontWeight: 700, color: thresholdColour(widget, value) ?? TEXT }} data-testid={`value-${widget.id}`}>
      {bound ? (value?.display ?? t('diagram.noValue')) : t('diagram.unbound')}
    </div>
  );
  // The picture takes the widget's height less its title and, when shown, its value line.
  const withValue = bound && widget.kind !== 'pipe';
  const pictureStyle = { height: Math.max(16, (size?.[1] ?? 80) - 22 - (withValue ? 20 : 0)) };
  let body: ReactNode;
  switch (widget.kind) {
    case 'text':
      body = null;
      break;
    case 'value':
      body = (
        <div style={{ fontSize: 20, fontWeight: 700, color: thresholdColour(widget, value) ?? ACCENT }} data-testid={`value-${widget.id}`}>
          {bound ? (value?.display ?? t('diagram.noValue')) : t('diagram.unbound')}
        </div>
      );
      break;
    case 'lamp':
      body = bound ? (
        <div
          data-testid={`lamp-${widget.id}`}
          data-lit={on}
          style={{
            width: 22,
            height: 22,
            margin: '4px auto 0',
            borderRadius: '50%',
            background: on ? (thresholdColour(widget, value) ?? ON) : OFF,
            boxShadow: on ? `0 0 10px ${ON}` : 'none',
          }}
        />
      ) : (
        <div style={{ fontSize: 12, color: '#6F86B8' }}>{t('diagram.unbound')}</div>
      );
      break;
    case 'gauge':
      body = (
        <>
          <HalfGauge widget={widget} value={value} colour={thresholdColour(widget, value) ?? ACCENT} />
          {display}
        </>
      );
      break;
    case 'meter':
      body = (
        <>
          <div style={pictureStyle}>
            <Meter widget={widget} value={value} colour={thresholdColour(widget, value) ?? ACCENT} />
          </div>
          {display}
        </>
      );
      break;
    case 'pump':
    case 'valve':
    case 'pipe':
      body = (
        <>
          <div style={pictureStyle} data-testid={`${widget.kind}-${widget.id}`} data-on={on}>
            {widget.kind === 'pump' ? (
              <Pump on={on} colour={thresholdColour(widget, value) ?? (on ? ON : OFF)} />
            ) : widget.kind === 'valve' ? (
              <Valve on={on} colour={thresholdColour(widget, value) ?? (on ? ON : OFF)} />
            ) : (
              <Pipe on={on} colour={colour} />
            )}
          </div>
          {widget.kind !== 'pipe' && bound && display}
        </>
      );
      break;
    case 'tank':
      body = (
        <>
          <div style={pictureStyle} data-testid={`tank-${widget.id}`} data-level={shareOf(widget, value).toFixed(2)}>
            <Tank share={shareOf(widget, value)} colour={thresholdColour(widget, value) ?? ACCENT} />
          </div>
          {display}
        </>
      );
      break;
    case 'switch': {
      const clickable = !data.editing && !!data.onSwitch && widget.command !== null && widget.deviceId !== null;
      body = (
        <button
          type="button"
          className="nodrag"
          data-testid={`switch-${widget.id}`}
          data-on={on}
          disabled={!clickable || data.busy}
          aria-label={`${widget.label || data.labels.switch}: ${on ? t('diagram.switchOn') : t('diagram.switchOff')}`}
          onClick={() => data.onSwitch?.(widget, !on)}
          style={{ background: 'none', border: 0, padding: 0, cursor: clickable ? 'pointer' : 'default', opacity: data.busy ? 0.6 : 1 }}
        >
          <SwitchFace on={on} />
          <div style={{ fontSize: 12, color: MUTED }}>{on ? t('diagram.switchOn') : t('diagram.switchOff')}</div>
        </button>
      );
      break;
    }
    case 'image':
      body = widget.fileId ? (
        <img src={imageUrl(widget.fileId)} alt={widget.label} style={{ width: '100%', ...pictureStyle, objectFit: 'contain' }} />
      ) : (
        <div style={{ fontSize: 12, color: '#6F86B8' }}>{t('diagram.pickImage')}</div>
      );
      break;
    case 'element':
      body = !element ? (
        <div style={{ fontSize: 12, color: '#E5484D' }}>{t('diagram.missingElement')}</div>
      ) : element.imageFileId ? (
        <img src={imageUrl(element.imageFileId)} alt={element.name} style={{ width: '100%', ...pictureStyle, objectFit: 'contain' }} />
      ) : (
        <div
          style={{ ...pictureStyle, border: `2px solid ${colour}`, borderRadius: 4, display: 'grid', placeItems: 'center', color: TEXT }}
        >
          {element.name}
        </div>
      );
      if (bound) body = [body, <div key="v">{display}</div>];
      break;
  }
  const framed = widget.kind === 'value' || widget.kind === 'lamp' || widget.kind === 'gauge' || widget.kind === 'text';
  return (
    <div
      className="diagram-widget"
      data-testid={`widget-${widget.id}`}
      style={{
        width: size?.[0],
        height: size?.[1],
        minWidth: framed ? 110 : undefined,
        padding: framed ? '6px 10px' : 2,
        borderRadius: 6,
        color: TEXT,
        background: framed ? 'rgba(10, 24, 56, 0.85)' : 'transparent',
        border: `1px ${selected && data.editing ? 'solid #4CC3FF' : framed ? 'solid #35508A' : data.editing ? 'dashed #35508A' : 'solid transparent'}`,
        textAlign: 'center',
        display: 'flex',
        flexDirection: 'column',
        boxSizing: 'border-box',
      }}
    >
      <Handle type="target" position={Position.Left} isConnectable={data.editing} style={{ opacity: data.editing ? 1 : 0 }} />
      <div style={{ fontSize: 12, color: MUTED, whiteSpace: 'nowrap', overflow: 'hidden', textOverflow: 'ellipsis' }}>
        {widget.label || (widget.kind === 'element' ? element?.name : data.labels[widget.kind])}
      </div>
      {body}
      <Handle type="source" position={Position.Right} isConnectable={data.editing} style={{ opacity: data.editing ? 1 : 0 }} />
    </div>
  );
}
