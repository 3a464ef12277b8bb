/** The SQL surface that modules outside infra/ see: no engine client leaks past infra/. */
export interface Sql {
  /**
   * Runs a statement. `prepare` names it, so that each connection parses and plans it once: for hot
   * statements with fixed text only (one name per distinct text).
   */
  query<R extends Record<string, unknown> = Record<string, unknown>>(
    text: string,
    params?: unknown[],
    options?: { prepare?: string },
  ): Promise<{ rows: R[]; rowCount: number }>;
}

export interface SqlPool extends Sql {
  /** Runs `fn` in one transaction: committed when it resolves, rolled back when it throws. */
  transaction<T>(fn: (tx: Sql) => Promise<T>): Promise<T>;
  /** A dedicated connection for LISTEN; released by the returned function. */
  listen(channel: string, onNotify: (payload: string | undefined) => void): Promise<() => Promise<void>>;
  end(): Promise<void>;
}
