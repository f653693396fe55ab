/** Polling for a condition in integration tests: short steps, a generous deadline, a clear error. */

/**
 * Calls `fn` until it returns a truthy value, and returns that value; fails after `timeoutMs`,
 * also while a call has not returned (a request the server never answers fails the test rather
 * than hanging the suite).
 */
export async function poll<T>(
  what: string,
  fn: () => Promise<T> | T,
  timeoutMs = 15_000,
): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  const late = Symbol("late");
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<typeof late>((r) => timer = setTimeout(() => r(late), timeoutMs));
  try {
    while (Date.now() < deadline) {
      try {
        const value = await Promise.race([fn(), expired]);
        if (value === late) {
          last = "a call still unanswered";
          break;
        }
        if (value) return value as NonNullable<T>;
        last = value;
      } catch (err) {
        last = err;
      }
      await new Promise((r) => setTimeout(r, 25));
    }
  } finally {
    clearTimeout(timer);
  }
  throw new Error(`timed out waiting for ${what}; last: ${String(last)}`);
}
