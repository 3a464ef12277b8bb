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

  constructor(
    /** `tags`: what the callers of this write tagged their rows with (a journal's message keys). */
    private readonly write: (rows: Row[], tags: Tag[]) => Promise<void>,
    private readonly maxRowsPerWrite: number,
  ) {}

  enqueue(rows: Row[], tag?: Tag): Promise<void> {
    if (rows.length === 0) return Promise.resolve();
    const done = new Promise<void>((resolve, reject) => this.pending.push({ rows, tag, resolve, reject }));
    this.kick();
    return done;
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
    while (this.draining) await this.draining;
  }

  private async drain(): Promise<void> {
    for (let callers = this.take(); callers.length > 0; callers = this.take()) {
      try {
        await this.writeChunks(
          callers.flatMap((caller) => caller.rows),
          tagsOf(callers),
        );
        for (const caller of callers) caller.resolve();
      } catch (error) {
        if (callers.length === 1) {
          callers[0]!.reject(error);
          continue;
        }
        // One caller's bad rows must not fail the others it was batched with: retry each alone.
        for (const caller of callers) {
          await this.writeChunks(caller.rows, tagsOf([caller])).then(caller.resolve, caller.reject);
        }
      }
    }
  }

  private take(): typeof this.pending {
    const callers: typeof this.pending = [];
    let rows = 0;
    while (this.pending.length > 0) {
      const next = this.pending[0]!;
      if (callers.length > 0 && rows + next.rows.length > this.maxRowsPerWrite) break;
      callers.push(this.pending.shift()!);
      rows += next.rows.length;
    }
    return callers;
  }

  /** The tags go with the last chunk (only one caller's rows can exceed a write): a tag is written once all its rows are. */
  private async writeChunks(rows: Row[], tags: Tag[]): Promise<void> {
    for (let start = 0; start < rows.length; start += this.maxRowsPerWrite) {
      const last = start + this.maxRowsPerWrite >= rows.length;
      await this.write(rows.slice(start, start + this.maxRowsPerWrite), last ? tags : []);
    }
  }
}

function tagsOf<Tag>(callers: { tag?: Tag }[]): Tag[] {
  const tags: Tag[] = [];
  for (const caller of callers) if (caller.tag !== undefined) tags.push(caller.tag);
  return tags;
}
