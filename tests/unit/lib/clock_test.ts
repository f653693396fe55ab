/**
 * The process's clock (lib/clock.ts): a timer fires once, a cancelled one never, and neither keeps
 * the process alive (a test holds it alive with a timer of its own while it waits).
 */
import { assert, assertEquals } from "../../support/assert.ts";
import { realClock } from "../../../lib/clock.ts";

Deno.test("real clock: after fires once, cancel stops it, now goes forward", async () => {
  const hold = setTimeout(() => {}, 10_000); // realClock's timers are unreferenced
  try {
    const start = realClock.now();
    const fired: string[] = [];
    const cancelled = realClock.after(() => fired.push("cancelled"), 0);
    realClock.cancel(cancelled);
    realClock.cancel(undefined);
    await new Promise<void>((resolve) =>
      realClock.after(() => {
        fired.push("kept");
        resolve();
      }, 1)
    );
    // A later timer has run too: the cancelled one, due first, would have fired by now.
    await new Promise((resolve) => setTimeout(resolve, 5));
    assertEquals(fired, ["kept"]);
    assert(realClock.now() >= start);
  } finally {
    clearTimeout(hold);
  }
});
