/**
 * Every delay of the IRC engine in one place, so tests can shorten them. Nothing here reads the
 * environment: `config.ts` picks the set once at start (`PARLEY_TEST_FAST_IRC=1` for the test
 * suite) and the manager passes it to each connection.
 */

/** The timings one IrcConnection works with. */
export interface IrcTiming {
  /** First reconnect delay (ms); doubles per failed attempt. */
  backoffBase: number;
  /** Longest reconnect delay (ms). */
  backoffMax: number;
  /** A connection registered this long (ms) resets the backoff. */
  stableAfter: number;
  /** How long to wait for registration before giving up on an attempt (ms). */
  registerTimeout: number;
  /** Default token bucket: lines that may go out at once. */
  sendBurst: number;
  /** Default token bucket: ms per token refilled. */
  sendInterval: number;
  /** How often to try to regain the wanted nick (ms). */
  nickRegainInterval: number;
  /** How long a QUIT may take at shutdown before the socket is dropped (ms). */
  quitTimeout: number;
  /** How often an open /events socket checks that its session still exists (ms). */
  sessionCheck: number;
  /** CTCP answers that may go out at once; more requests than that are not answered. */
  ctcpBurst: number;
  /** ms per CTCP answer regained (3 per 10 s). */
  ctcpInterval: number;
  /** How long `/ctcp` waits for the other client's answer (ms). */
  ctcpWait: number;
  /** Queries a client asks on its own (a channel's modes) that may go ahead of the queue at once. */
  queryBurst: number;
  /** ms per such query regained. */
  queryInterval: number;
}

/** Same in tests: the budget is what tests count. */
const CTCP = { ctcpBurst: 3, ctcpInterval: 3334 };

/** Same in tests too: what a client asks on opening a channel, a few at a time, then one a second. */
const QUERIES = { queryBurst: 5, queryInterval: 1000 };

/**
 * The test suite's timings: reconnects start after 50 ms instead of seconds, a connection counts
 * as stable after 1 s, and the send queue refills in milliseconds.
 */
export const FAST_TIMING: IrcTiming = {
  backoffBase: 50,
  backoffMax: 500,
  stableAfter: 1000,
  registerTimeout: 5000,
  sendBurst: 20,
  sendInterval: 5,
  nickRegainInterval: 500,
  quitTimeout: 300,
  sessionCheck: 200,
  ctcpWait: 1500,
  ...CTCP,
  ...QUERIES,
};

/** The production timings. */
export const DEFAULT_TIMING: IrcTiming = {
  backoffBase: 4000,
  backoffMax: 600_000,
  stableAfter: 60_000,
  registerTimeout: 60_000,
  sendBurst: 5,
  sendInterval: 2000,
  nickRegainInterval: 60_000,
  quitTimeout: 2000,
  sessionCheck: 30_000,
  ctcpWait: 10_000,
  ...CTCP,
  ...QUERIES,
};
