/**
 * The field schemas several operations share (protocol/contract/fields.ts): what each accepts, what it turns
 * a value into, and the words it refuses with.
 */
import type { z } from "zod";
import { assertEquals } from "../../../support/assert.ts";
import {
  email,
  password,
  queryBool,
  queryLimit,
  queryTime,
} from "../../../../protocol/contract/fields.ts";

/** The first issue's message, or the parsed value. */
function parse(schema: z.ZodType, value: unknown): unknown {
  const r = schema.safeParse(value);
  return r.success ? r.data : `error: ${r.error.issues[0].message}`;
}

Deno.test("email: trimmed and lower-cased, so that one address is one user", () => {
  assertEquals(parse(email, "  Alice@Example.COM "), "alice@example.com");
  assertEquals(parse(email, "not an address"), "error: Does not match email format.");
  assertEquals(parse(email, undefined), "error: Email is required.");
});

Deno.test("password: 10 to 1024 characters", () => {
  assertEquals(parse(password, "x".repeat(10)), "x".repeat(10));
  assertEquals(parse(password, "x".repeat(9)), "error: Password must be at least 10 characters.");
  assertEquals(parse(password, "x".repeat(1024)), "x".repeat(1024));
  assertEquals(parse(password, "x".repeat(1025)), "error: Password is too long.");
  assertEquals(parse(password, 1234567890), "error: Password is required.");
});

Deno.test("query flags: true and 1 are set; false, 0, empty and absent are not", () => {
  for (const v of ["true", "1"]) assertEquals(parse(queryBool, v), true, v);
  for (const v of ["false", "0", "", undefined]) assertEquals(parse(queryBool, v), false, `${v}`);
  assertEquals(typeof parse(queryBool, "yes"), "string", "anything else is refused");
});

Deno.test("query limits: a default when absent, capped at the maximum, at least 1", () => {
  const limit = queryLimit(50, 200);
  assertEquals(parse(limit, undefined), 50);
  assertEquals(parse(limit, "7"), 7);
  assertEquals(parse(limit, "200"), 200);
  assertEquals(parse(limit, "100000"), 200, "capped, not refused");
  assertEquals(parse(limit, "0"), "error: Must be at least 1.");
  for (const v of ["-1", "1.5", "ten", ""]) {
    assertEquals(parse(limit, v), "error: Must be a positive integer.", v);
  }
});

Deno.test("query times: RFC 3339 to microseconds; anything else says what it wants", () => {
  assertEquals(parse(queryTime, undefined), undefined);
  assertEquals(
    parse(queryTime, "2026-11-22T10:00:00.000001Z"),
    Date.UTC(2026, 10, 22, 10) * 1000 + 1,
  );
  assertEquals(
    parse(queryTime, "yesterday"),
    "error: Must be an ISO 8601 date-time, e.g. 2026-11-22T10:00:00Z.",
  );
});
