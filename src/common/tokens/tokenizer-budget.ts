/**
 * How much tokenizing one request's prompt may do. The first FREE_CHARS characters are always
 * tokenized, so an ordinary prompt's estimate never depends on the machine's load; past them, up
 * to `cpuMs` of the process's CPU time (not wall time: a busy machine that deschedules the process
 * does not cut the estimate short). What is left when the budget is spent is counted as bytes,
 * still an upper bound (openai-encoding.ts).
 */
export class TokenizerBudget {
  static readonly FREE_CHARS = 1_024;
  private freeChars: number;
  private cpuUntil: number | null = null;

  constructor(
    private readonly cpuMs: number,
    freeChars = TokenizerBudget.FREE_CHARS,
  ) {
    this.freeChars = freeChars;
  }

  /** No limit: for tests that compare the estimate with the tokenizer. */
  static unlimited(): TokenizerBudget {
    return new TokenizerBudget(Number.POSITIVE_INFINITY, Number.POSITIVE_INFINITY);
  }

  /** Nothing left: everything is counted as bytes. */
  static spent(): TokenizerBudget {
    return new TokenizerBudget(Number.NEGATIVE_INFINITY, 0);
  }

  /** Whether `chars` more characters may be tokenized; charged when so. */
  allows(chars: number): boolean {
    if (this.freeChars >= chars) {
      this.freeChars -= chars;
      return true;
    }
    this.freeChars = 0;
    if (this.cpuUntil === null) this.cpuUntil = cpuMs() + this.cpuMs;
    return cpuMs() <= this.cpuUntil;
  }
}

function cpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}
