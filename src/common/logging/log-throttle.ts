/**
 * At most one log line per kind per interval. The first occurrence of a kind is logged at once;
 * the ones after it within the interval are only counted, and when the interval ends one line
 * reports how many there were. An outage then costs a line per interval, not one per request.
 */
export class LogThrottle {
  private readonly windows = new Map<
    string,
    { suppressed: number; latest: string; timer: NodeJS.Timeout }
  >();

  constructor(
    private readonly intervalMs: number,
    /** Writes the summary line for a kind whose later occurrences were held back. */
    private readonly summarize: (kind: string, suppressed: number, latest: string) => void,
  ) {}

  /** True when this occurrence should be logged now; `detail` is kept for the summary line. */
  admit(kind: string, detail: string): boolean {
    if (this.intervalMs <= 0) return true;
    const window = this.windows.get(kind);
    if (window) {
      window.suppressed++;
      window.latest = detail;
      return false;
    }
    const timer = setTimeout(() => this.close(kind), this.intervalMs).unref();
    this.windows.set(kind, { suppressed: 0, latest: detail, timer });
    return true;
  }

  /** Reports what is still held back; for shutdown. */
  flush(): void {
    for (const kind of [...this.windows.keys()]) this.close(kind);
  }

  private close(kind: string): void {
    const window = this.windows.get(kind);
    if (!window) return;
    clearTimeout(window.timer);
    this.windows.delete(kind);
    if (window.suppressed > 0) this.summarize(kind, window.suppressed, window.latest);
  }
}
