/** Reconnect delays (exponential backoff with jitter, capped) and the per-host connect pace. */
import type { IrcTiming } from "./timing.ts";

/**
 * The delay before reconnect attempt number `attempt` (0 for the first retry): `base * 2^attempt`
 * capped at `max`, of which a random half is kept ("equal jitter"), so that many connections
 * dropped together do not come back in lockstep.
 */
export function backoffDelay(
  attempt: number,
  timing: Pick<IrcTiming, "backoffBase" | "backoffMax">,
  random: () => number = Math.random,
): number {
  const full = Math.min(timing.backoffMax, timing.backoffBase * 2 ** Math.min(attempt, 30));
  return Math.round(full / 2 + random() * (full / 2));
}

/**
 * The gap after one connect to a host before the next (`delay` ms, PARLEY_CONNECT_DELAY), a
 * quarter either way at random: after a restart every node's queue starts at once, and without
 * it their connects to one network would keep arriving in step.
 */
export function connectGap(delay: number, random: () => number = Math.random): number {
  return Math.round(delay * (0.75 + random() * 0.5));
}
