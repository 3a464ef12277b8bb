/**
 * An open-loop send schedule: messages are due at fixed times whatever the answers do, so a slow system shows
 * as latency measured from the time a message was due, not as a generator that politely waits (coordinated
 * omission). The step's messages, numbered 0…total-1, are spread evenly over `processes` generator processes:
 * process `lane` sends the numbers lane, lane + processes, lane + 2·processes…
 */
export class RateSchedule {
  /** How many messages this process sends in the step. */
  readonly count: number;
  private readonly intervalMs: number;

  constructor(
    /** Epoch ms at which message 0 of the step is due. */
    private readonly startAt: number,
    /** Messages per second offered by all processes together. */
    rate: number,
    /** Messages in the step, all processes together. */
    total: number,
    private readonly lane = 0,
    private readonly processes = 1,
  ) {
    if (!(rate > 0)) throw new RangeError(`rate must be positive, got ${rate}`);
    if (lane < 0 || lane >= processes) throw new RangeError(`lane ${lane} outside 0…${processes - 1}`);
    this.intervalMs = 1000 / rate;
    this.count = total > lane ? Math.floor((total - 1 - lane) / processes) + 1 : 0;
  }

  /** Epoch ms at which this process's k-th message is due. */
  dueAt(k: number): number {
    return this.startAt + (k * this.processes + this.lane) * this.intervalMs;
  }

  /** How many of this process's messages are due at `now` (epoch ms): the first k with dueAt(k) > now. */
  dueBy(now: number): number {
    if (now < this.startAt) return 0;
    let k = Math.max(0, Math.min(this.count, Math.floor(((now - this.startAt) / this.intervalMs - this.lane) / this.processes) + 1));
    // The division may round across a boundary: settle on the exact answer by the times themselves.
    while (k < this.count && this.dueAt(k) <= now) k++;
    while (k > 0 && this.dueAt(k - 1) > now) k--;
    return k;
  }

  /** Epoch ms at which this process's last message is due. */
  get endAt(): number {
    return this.count === 0 ? this.startAt : this.dueAt(this.count - 1);
  }
}

/** Epoch milliseconds with sub-millisecond resolution, comparable across processes on one machine. */
export const epochNow = (): number => performance.timeOrigin + performance.now();
