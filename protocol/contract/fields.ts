/** Field schemas shared by several operations, with the constraints of the API document. */
import { z } from "zod";
import { parseMicros } from "../time.ts";

/** An email address, lower-cased so that it identifies one user whatever its case. */
export const email = z.string({ error: "Email is required." })
  .trim()
  .toLowerCase()
  .pipe(z.email({ error: "Does not match email format." }));

/** A new password: at least 10 characters. */
export const password = z.string({ error: "Password is required." })
  .min(10, { error: "Password must be at least 10 characters." })
  .max(1024, { error: "Password is too long." });

/** A boolean query flag: `true`, `1`, `false`, `0`. */
export const queryBool = z.enum(["true", "false", "1", "0", ""]).optional()
  .transform((v) => v === "true" || v === "1").meta({ type: "boolean" });

/** A positive integer query value no greater than `max`, defaulting to `fallback`. */
export function queryLimit(fallback: number, max: number) {
  return z.string().regex(/^\d+$/, { error: "Must be a positive integer." }).optional()
    .transform((v) => (v === undefined ? fallback : Number(v)))
    .pipe(
      z.number().int().min(1, { error: "Must be at least 1." }).transform((n) => Math.min(n, max)),
    ).meta({ type: "integer" });
}

/** An RFC 3339 date-time query value, as microseconds since the epoch. */
export const queryTime = z.string().optional().transform((v, ctx) => {
  if (v === undefined) return undefined;
  const us = parseMicros(v);
  if (us === null) {
    ctx.addIssue({
      code: "custom",
      message: "Must be an ISO 8601 date-time, e.g. 2026-11-22T10:00:00Z.",
    });
    return z.NEVER;
  }
  return us;
});
