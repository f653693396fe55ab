/**
 * lib/malloc_trim.ts: on this glibc system the trim runs (its effect, RSS after an IRC burst, is
 * measured by `deno task bench irc_flood`); a library or FFI change that silently turned it into
 * a no-op fails here.
 */
import { assert, assertEquals } from "../../support/assert.ts";
import { trimMalloc } from "../../../lib/malloc_trim.ts";

Deno.test("trimMalloc runs on a glibc system, and again without reopening libc", () => {
  assert(trimMalloc(), "malloc_trim through FFI is available here");
  assertEquals(trimMalloc(), true);
});
