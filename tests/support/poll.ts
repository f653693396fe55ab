/** Polling for a condition in integration tests: short steps, a generous deadline, a clear error. */

/** Calls `fn` until it returns a truthy value, and returns that value; fails after `timeoutMs`. */
export async function poll<T>(
  what: string,
  fn: () => Promise<T> | T,
  timeoutMs = 15_000,
): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const value = await fn();
      if (value) return value as NonNullable<T>;
      last = value;
    } catch (err) {
      last = err;
    }
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`timed out waiting for ${what}; last: ${String(last)}`);
}
