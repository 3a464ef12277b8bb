/**
 * Group commit: rows handed in while a write is in flight go out together in the next write,
 * so many small calls become few large inserts (each insert is a MergeTree part).
 */
export class WriteBatcher<Row, Tag = never> {
  private pending: {
    rows: Row[];
    tag?: Tag;
    resolve: () => void;
    reject: (error: unknown) => void;
  }[] = [];
  private draining: Promise<void> | null = null;
  /** Writes not ended, the last one's hand-off included (see `write`). */
  private readonly inFlight = new Set<Promise<void>>();
  /** Callers in circulation at the last write's end (it answered them, the others waited), and its time (gathering). */
  private circulating = 0;
  private lastWriteMs = 0;
  /** Ends a gathering wait early, once as many callers wait as were in circulation. */
  private gathered: (() => void) | null = null;

  constructor(
    /**
     * `tags`: what the callers of this write tagged their rows with (a journal's message keys); `sizes`: how many of
     * the rows each caller handed in, in order (where one message ends and the next begins). `handOff`: the write
     * calls it once the next write may begin beside it (the journal flushed this one's rows to disk, only the insert
     * is left), so that the next batch's fsync overlaps this one's insert; a write that never calls it runs alone.
     * Callers are answered when their own write ends, whatever the others do.
     */
    private readonly write: (rows: Row[], tags: Tag[], sizes: number[], handOff: () => void) => Promise<void>,
    private readonly maxRowsPerWrite: number,
    /**
     * Callers that call again once answered (HTTP clients, devices with a window of QoS 1 messages) would split into
     * two groups that alternate, each paying a write's fixed cost: while fewer rows than `belowRows` wait, the next
     * write waits for the callers in circulation to come back, at most half the last write's time and never more
     * than `maxMs`. Off by default.
     */
    private readonly gathering: { maxMs: number; belowRows: number } | null = null,
  ) {}

  enqueue(rows: Row[], tag?: Tag): Promise<void> {
    if (rows.length === 0) return Promise.resolve();
    const done = new Promise<void>((resolve, reject) => this.pending.push({ rows, tag, resolve, reject }));
    if (this.gathered && this.pending.length >= this.circulating) this.gathered();
    this.kick();
    return done;
  }

  /** Waits for the callers in circulation to come back (see `gathering`), unless they wait already or the rows are many. */
  private async gather(gathering: { maxMs: number; belowRows: number }): Promise<void> {
    const waitMs = Math.min(gathering.maxMs, this.lastWriteMs / 2);
    if (waitMs < 1 || this.pending.length === 0 || this.pending.length >= this.circulating) return;
    let rows = 0;
    for (const caller of this.pending) if ((rows += caller.rows.length) >= gathering.belowRows) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => this.gathered?.(), waitMs);
      this.gathered = () => {
        clearTimeout(timer);
        this.gathered = null;
        resolve();
      };
    });
  }

  private kick(): void {
    this.draining ??= this.drain().finally(() => {
      this.draining = null;
      // Rows enqueued after the drain loop's last look would otherwise wait for the next caller.
      if (this.pending.length > 0) this.kick();
    });
  }

  /** Resolves once everything enqueued so far is written (or has failed). */
  async flush(): Promise<void> {
    while (this.draining || this.inFlight.size > 0) {
      await this.draining;
      await Promise.all(this.inFlight);
    }
  }

  private async drain(): Promise<void> {
    for (let callers = await this.next(); callers.length > 0; callers = await this.next()) {
      let handOff = () => undefined as void;
      const handedOff = new Promise<void>((resolve) => (handOff = resolve));
      const done = this.writeCallers(callers, handOff);
      this.inFlight.add(done);
      void done.then(() => this.inFlight.delete(done));
      // The next batch is taken once this write hands off (or ends): meanwhile its rows gather, as they did while a write ran.
      await Promise.race([handedOff, done]);
    }
  }

  /** One write of the callers' rows, answering each; never rejects (a caller's failure is its own). */
  private async writeCallers(callers: typeof this.pending, handOff: () => void): Promise<void> {
    try {
      const started = performance.now();
      await this.writeChunks(
        callers.flatMap((caller) => caller.rows),
        tagsOf(callers),
        callers.map((caller) => caller.rows.length),
        handOff,
      );
      this.lastWriteMs = performance.now() - started;
      this.circulating = callers.length + this.pending.length;
      for (const caller of callers) caller.resolve();
    } catch (error) {
      handOff();
      if (callers.length === 1) {
        callers[0]!.reject(error);
        return;
      }
      // One caller's bad rows must not fail the others it was batched with: retry each alone.
      for (const caller of callers) {
        await this.writeChunks(caller.rows, tagsOf([caller]), [caller.rows.length], () => undefined).then(caller.resolve, caller.reject);
      }
    }
  }

  private async next(): Promise<typeof this.pending> {
    if (this.gathering) await this.gather(this.gathering);
    return this.take();
  }

  private take(): typeof this.pending {
    let taken = 0;
    let rows = 0;
    for (const next of this.pending) {
      if (taken > 0 && rows + next.rows.length > this.maxRowsPerWrite) break;
      taken += 1;
      rows += next.rows.length;
    }
    // One splice: shifting callers one by one costs a copy of the queue each (thousands of QoS 1 messages wait at once).
    return this.pending.splice(0, taken);
  }

  /**
   * The tags go with the last chunk (only one caller's rows can exceed a write): a tag is written once all its rows are.
   * The hand-off too: the next write begins beside the last chunk only, so rows are stored in the order they were taken.
   */
  private async writeChunks(rows: Row[], tags: Tag[], sizes: number[], handOff: () => void): Promise<void> {
    if (rows.length <= this.maxRowsPerWrite) return this.write(rows, tags, sizes, handOff);
    for (let start = 0; start < rows.length; start += this.maxRowsPerWrite) {
      const last = start + this.maxRowsPerWrite >= rows.length;
      const chunk = rows.slice(start, start + this.maxRowsPerWrite);
      await this.write(chunk, last ? tags : [], [chunk.length], last ? handOff : () => undefined);
    }
  }
}

function tagsOf<Tag>(callers: { tag?: Tag }[]): Tag[] {
  const tags: Tag[] = [];
  for (const caller of callers) if (caller.tag !== undefined) tags.push(caller.tag);
  return tags;
}
