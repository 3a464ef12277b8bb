/**
 * The raw-socket MQTT load generator (issue 23), spread over child processes (mqtt-gen.ts): devices are dealt
 * to the processes in turn, each step's messages are numbered and dealt the same way, so together the
 * processes offer exactly `rate` messages a second on one schedule (open loop). Each step answers with the
 * counts and the merged publish-to-PUBACK and send-lag histograms.
 */
import { fork, type ChildProcess } from 'node:child_process';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import type { Histogram } from 'hdr-histogram-js';
import { merged } from './latency.ts';
import type { ProtocolVersion } from './mqtt-frames.ts';
import { epochNow } from './schedule.ts';

export interface StepCommand {
  type: 'step';
  /** Epoch ms at which the step's first message is due. */
  startAt: number;
  /** Messages a second, all processes together. */
  rate: number;
  /** Messages in the step, all processes together. */
  total: number;
  seconds: number;
  lane: number;
  processes: number;
  /** How long after the last message is due PUBACKs are still waited for. */
  drainMs: number;
  /** `open`: the schedule whatever happens; `ceiling`: as fast as possible until `seconds` pass, `maxInflight` at most. */
  mode: 'open' | 'ceiling';
  maxInflight: number;
  /** Answer each connection's due times of the messages it wrote, in order (what a bench matches its own observations with). */
  keepDues?: boolean;
}

export type GeneratorCommand =
  | {
      type: 'connect';
      url: string;
      protocolVersion: ProtocolVersion;
      vars: number;
      suffix: string;
      devices: Device[];
      /** Telemetry `{"v1":…}` (the default), or OTA progress reports `{"status":"downloading","percent":n}`, n = seq mod 101. */
      payload?: 'telemetry' | 'ota-progress';
    }
  | StepCommand
  | { type: 'disconnect' }
  | { type: 'exit' };

interface StepCounts {
  sent: number;
  acked: number;
  refused: number;
  /** PUBACKs for no message in flight. */
  stray: number;
  /** Messages not sent because their connection had WINDOW in flight. */
  blocked: number;
  /** Messages not sent because their connection had closed. */
  failed: number;
  /** Messages without PUBACK when the drain time was over. */
  unacked: number;
  lastAckAt: number;
}

export type GeneratorReply =
  | { type: 'ready' }
  | { type: 'connected'; connected: number; refused: number[] }
  | ({ type: 'stepped'; ack: string; sendLag: string; dues?: DeviceDues[] } & StepCounts)
  | { type: 'disconnected' };

/** A device's messages of a step: the due time (epoch ms) of each, in the order written. */
export interface DeviceDues {
  sn: string;
  dues: number[];
}

export interface Device {
  sn: string;
  secret: string;
}

export interface StepResult extends StepCounts {
  /** Messages the schedule offered. */
  offered: number;
  startAt: number;
  /** Publish-to-PUBACK, from the time each message was due (coordinated omission included). */
  ack: Histogram;
  /** How late the generator wrote each message after it was due: if this grows, the generator is the limit. */
  sendLag: Histogram;
  /** Per device, the due times of its messages (only when the step kept them). */
  dues: DeviceDues[];
}

export interface Generator {
  readonly processes: number;
  connect(
    url: string,
    devices: Device[],
    options: { vars: number; suffix?: string; protocolVersion?: ProtocolVersion; payload?: 'telemetry' | 'ota-progress' },
  ): Promise<void>;
  /** Offers `rate` messages a second for `seconds` (open loop) and waits for the PUBACKs up to `drainMs` after. */
  step(rate: number, seconds: number, drainMs: number, options?: { keepDues?: boolean }): Promise<StepResult>;
  /** Sends as fast as the processes can for `seconds`, at most `maxInflight` unacknowledged per process. */
  ceiling(seconds: number, maxInflight?: number): Promise<StepResult>;
  disconnect(): Promise<void>;
  close(): Promise<void>;
}

const worker = fileURLToPath(new URL('./mqtt-gen.ts', import.meta.url));

/** Starts the generator's processes (BENCH_GEN_PROCS, else one a core and at least 2). */
export async function startGenerator(
  processes = Number(process.env.BENCH_GEN_PROCS ?? Math.max(2, os.availableParallelism())),
): Promise<Generator> {
  const children: ChildProcess[] = [];
  const replies = new Map<ChildProcess, ((reply: GeneratorReply) => void)[]>();
  const exits: Promise<void>[] = [];
  const next = (child: ChildProcess) =>
    new Promise<GeneratorReply>((resolve) => {
      replies.get(child)!.push(resolve);
    });
  for (let i = 0; i < processes; i++) {
    const child = fork(worker, [], {
      execArgv: ['--import', 'tsx', ...(process.env.BENCH_GEN_PROF ? ['--cpu-prof', '--cpu-prof-dir=' + process.env.BENCH_GEN_PROF] : [])],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    replies.set(child, []);
    child.on('message', (reply: GeneratorReply) => replies.get(child)!.shift()?.(reply));
    exits.push(new Promise((resolve) => child.once('exit', () => resolve())));
    children.push(child);
  }
  await Promise.all(children.map(next));
  const ask = <T extends GeneratorReply>(child: ChildProcess, command: GeneratorCommand) => {
    const answer = next(child);
    child.send(command);
    return answer as Promise<T>;
  };

  const run = async (command: Omit<StepCommand, 'lane' | 'processes' | 'type'>): Promise<StepResult> => {
    const answers = await Promise.all(
      children.map((child, lane) =>
        ask<Extract<GeneratorReply, { type: 'stepped' }>>(child, { type: 'step', ...command, lane, processes }),
      ),
    );
    const sum = (key: keyof StepCounts) => answers.reduce((total, a) => total + a[key], 0);
    return {
      offered: command.total,
      startAt: command.startAt,
      sent: sum('sent'),
      acked: sum('acked'),
      refused: sum('refused'),
      stray: sum('stray'),
      blocked: sum('blocked'),
      failed: sum('failed'),
      unacked: sum('unacked'),
      lastAckAt: Math.max(...answers.map((a) => a.lastAckAt)),
      ack: merged(answers.map((a) => a.ack)),
      sendLag: merged(answers.map((a) => a.sendLag)),
      dues: answers.flatMap((a) => a.dues ?? []),
    };
  };
  // The processes need a moment to get the command: the first message is due a little later.
  const startSoon = () => epochNow() + 250;

  return {
    processes,
    async connect(url, devices, { vars, suffix = 'telemetry', protocolVersion = 4, payload = 'telemetry' }) {
      const answers = await Promise.all(
        children.map((child, lane) =>
          ask<Extract<GeneratorReply, { type: 'connected' }>>(child, {
            type: 'connect',
            url,
            protocolVersion,
            vars,
            suffix,
            payload,
            devices: devices.filter((_, i) => i % processes === lane),
          }),
        ),
      );
      const refused = answers.flatMap((a) => a.refused);
      if (refused.length > 0)
        throw new Error(`${refused.length} of ${devices.length} devices not connected (codes ${[...new Set(refused)].join(', ')})`);
    },
    step: (rate, seconds, drainMs, { keepDues = false } = {}) =>
      run({
        keepDues,
        startAt: startSoon(),
        rate,
        total: Math.round(rate * seconds),
        seconds,
        drainMs,
        mode: 'open',
        maxInflight: Number.MAX_SAFE_INTEGER,
      }),
    ceiling: (seconds, maxInflight = 20_000) =>
      run({ startAt: startSoon(), rate: 1e9, total: Number.MAX_SAFE_INTEGER, seconds, drainMs: 5_000, mode: 'ceiling', maxInflight }),
    async disconnect() {
      await Promise.all(children.map((child) => ask(child, { type: 'disconnect' })));
    },
    async close() {
      for (const child of children) if (child.connected) child.send({ type: 'exit' } satisfies GeneratorCommand);
      await Promise.all(exits);
    },
  };
}
