/**
 * Failed-login throttling. Failures count per (email, client address): after a few free tries
 * each further try of that pair waits twice as long as the one before, so guessing one account's
 * password from one place slows down fast, while the account's owner, logging in from elsewhere,
 * is never locked out by a stranger. Each address also has a hard budget of failures over all
 * emails, against one place trying many accounts.
 *
 * An attempt counts as a failure from the moment it begins (`begin`) until it is settled, so that
 * guesses sent together are counted before any of them is verified: the checks of the web login
 * and the IRC listener both go through `begin`.
 */

/** The throttle's settings (milliseconds and counts). */
interface ThrottleLimits {
  /** Failures of one (email, address) pair that cost nothing. */
  free: number;
  /** The wait after the first failure past `free`; each further failure doubles it. */
  baseDelayMs: number;
  /** The longest wait of a pair. */
  maxDelayMs: number;
  /** A pair's failures are forgotten this long after its last one. */
  forgetMs: number;
  /** Failures one address may have over all emails within `addressWindowMs`. */
  addressMax: number;
  addressWindowMs: number;
}

/**
 * The limits Parley uses; docs/security.md lists them.
 *
 * @internal test seam
 */
export const LOGIN_LIMITS: ThrottleLimits = {
  free: 5,
  baseDelayMs: 1000,
  maxDelayMs: 15 * 60_000,
  forgetMs: 60 * 60_000,
  addressMax: 50,
  addressWindowMs: 10 * 60_000,
};

// Bound memory under a flood of distinct emails or addresses.
const MAX_KEYS = 100_000;

interface PairState {
  failures: number;
  last: number;
}

/** An attempt that may be verified; counted as a failure until it is settled. */
interface LoginAttempt {
  /** The credentials were right: the pair's failures are forgotten, this one too. */
  succeed(): void;
  /** They were wrong: the failure stays counted. */
  fail(): void;
}

/** What `begin` answers: the milliseconds to wait, or an attempt to settle. */
type LoginTurn = { wait: number } | LoginAttempt;

/** Tracks failures and says how long a login attempt must wait. */
export class LoginThrottle {
  #pairs = new Map<string, PairState>();
  #addresses = new Map<string, number[]>();
  /**
   * Told of every failure (as its attempt begins) and success here, so that other nodes of a
   * cluster count them too (cluster/irc.ts shares them; they come back through `fail`/`succeed`
   * with `shared`; a success carries the time its attempt began).
   */
  share?: (kind: "fail" | "succeed", email: string, address: string, now: number) => void;
  constructor(readonly limits: ThrottleLimits = LOGIN_LIMITS) {}

  #pair(email: string, address: string, now: number): PairState | undefined {
    const key = `${address} ${email}`;
    const state = this.#pairs.get(key);
    if (state && now - state.last > this.limits.forgetMs) {
      this.#pairs.delete(key);
      return undefined;
    }
    return state;
  }

  #recent(address: string, now: number): number[] {
    const list = (this.#addresses.get(address) ?? [])
      .filter((t) => t > now - this.limits.addressWindowMs);
    if (list.length) this.#addresses.set(address, list);
    else this.#addresses.delete(address);
    return list;
  }

  /** Milliseconds before this email may be tried again from this address; 0 when it may now. */
  wait(email: string, address: string, now = Date.now()): number {
    const { free, baseDelayMs, maxDelayMs, addressMax, addressWindowMs } = this.limits;
    let wait = 0;
    const pair = this.#pair(email, address, now);
    if (pair && pair.failures >= free) {
      const delay = Math.min(baseDelayMs * 2 ** (pair.failures - free), maxDelayMs);
      wait = Math.max(wait, pair.last + delay - now);
    }
    const recent = this.#recent(address, now);
    if (recent.length >= addressMax) {
      wait = Math.max(wait, recent[recent.length - addressMax] + addressWindowMs - now);
    }
    return Math.max(0, wait);
  }

  /**
   * Begins a login attempt of `email` from `address`: when the pair or the address must wait,
   * `{wait}` (milliseconds); else an attempt, already counted as a failure (here and, through
   * `share`, on the other nodes) until its `succeed()`. One that is never settled (the check
   * threw) stays a failure.
   */
  begin(email: string, address: string, now = Date.now()): LoginTurn {
    const wait = this.wait(email, address, now);
    if (wait > 0) return { wait };
    this.fail(email, address, now);
    let settled = false;
    return {
      succeed: () => {
        if (settled) return;
        settled = true;
        this.succeed(email, address, false, now);
      },
      fail: () => {
        settled = true;
      },
    };
  }

  /** Records one failed login (`shared`: one another node saw). */
  fail(email: string, address: string, now = Date.now(), shared = false): void {
    if (!shared) this.share?.("fail", email, address, now);
    const key = `${address} ${email}`;
    const failures = (this.#pair(email, address, now)?.failures ?? 0) + 1;
    this.#pairs.delete(key); // re-inserted last: the maps drop their oldest entries first
    this.#pairs.set(key, { failures, last: now });
    const recent = this.#recent(address, now);
    recent.splice(0, recent.length - (this.limits.addressMax - 1));
    this.#addresses.delete(address);
    this.#addresses.set(address, [...recent, now]);
    for (const map of [this.#pairs, this.#addresses]) {
      if (map.size <= MAX_KEYS) continue;
      for (const k of [...map.keys()].slice(0, MAX_KEYS / 10)) map.delete(k);
    }
  }

  /**
   * Forgets the pair's failures after a successful login, and takes the attempt that began at
   * `began` off the address's budget (the address's other failures stay counted).
   */
  succeed(email: string, address: string, shared = false, began?: number): void {
    if (!shared) this.share?.("succeed", email, address, began ?? Date.now());
    this.#pairs.delete(`${address} ${email}`);
    if (began === undefined) return;
    const list = this.#addresses.get(address);
    const at = list?.lastIndexOf(began) ?? -1;
    if (at >= 0) list!.splice(at, 1);
    if (list && !list.length) this.#addresses.delete(address);
  }
}
