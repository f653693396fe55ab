/** Assertions for tests (JSR's @std/assert is out of reach, so these few are kept here). */
import { deepStrictEqual, ok } from "node:assert/strict";

/** Fails unless `actual` deep-equals `expected`. */
export function assertEquals<T>(actual: unknown, expected: T, msg?: string): asserts actual is T {
  deepStrictEqual(actual, expected, msg);
}

/** Fails unless `value` is truthy. */
export function assert(value: unknown, msg?: string): asserts value {
  ok(value, msg);
}

/** Fails unless `text` contains `part`. */
export function assertStringIncludes(text: string, part: string, msg?: string): void {
  ok(
    text.includes(part),
    msg ?? `expected ${JSON.stringify(text.slice(0, 500))} to include ${JSON.stringify(part)}`,
  );
}

/** Fails unless `a` and `b` differ. */
export function assertNotEquals(a: unknown, b: unknown, msg?: string): void {
  ok(
    JSON.stringify(a) !== JSON.stringify(b),
    msg ?? `expected values to differ: ${JSON.stringify(a)}`,
  );
}

/** Fails unless `fn` rejects; returns the error. */
export async function assertRejects(fn: () => Promise<unknown>, msg?: string): Promise<Error> {
  try {
    await fn();
  } catch (err) {
    return err as Error;
  }
  throw new Error(msg ?? "expected a rejection");
}

/** Fails unless `fn` throws; returns the error. */
export function assertThrows(fn: () => unknown, msg?: string): Error {
  try {
    fn();
  } catch (err) {
    return err as Error;
  }
  throw new Error(msg ?? "expected an exception");
}
