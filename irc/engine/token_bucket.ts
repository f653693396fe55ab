/** Outgoing flood control: a token bucket per IRC connection. */

/**
 * Holds up to `burst` tokens and gains one every `interval` ms. Sending a line costs a token;
 * when none is left the caller waits as long as `take()` says.
 */
export class TokenBucket {
  #tokens: number;
  #updated: number;

  constructor(
    readonly burst: number,
    readonly interval: number,
    private readonly now: () => number = Date.now,
  ) {
    this.#tokens = burst;
    this.#updated = now();
  }

  #refill(): void {
    const t = this.now();
    const gained = (t - this.#updated) / this.interval;
    if (gained > 0) {
      this.#tokens = Math.min(this.burst, this.#tokens + gained);
      this.#updated = t;
    }
  }

  /** Takes a token and returns 0, or returns how many ms until one is available (taking none). */
  take(): number {
    this.#refill();
    if (this.#tokens >= 1) {
      this.#tokens -= 1;
      return 0;
    }
    return Math.ceil((1 - this.#tokens) * this.interval);
  }

  /** Tokens available now (fractional). */
  available(): number {
    this.#refill();
    return this.#tokens;
  }
}
