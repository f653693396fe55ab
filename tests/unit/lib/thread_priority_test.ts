/** lib/thread_priority.ts: a background thread lowers its own priority, not the process's. */
import { assertEquals } from "../../support/assert.ts";
import { BACKGROUND_NICE } from "../../../lib/thread_priority.ts";
import { niceByThread } from "../../support/threads.ts";

Deno.test({
  name: "lowerThreadPriority: only the calling thread runs at the background priority",
  ignore: Deno.build.os !== "linux",
  async fn() {
    const before = niceByThread();
    const main = before.get(String(Deno.pid))!;
    // Lower than the process by BACKGROUND_NICE, whatever the process runs at.
    const expected = Math.min(19, main + BACKGROUND_NICE);
    const worker = new Worker(new URL("../../support/thread_priority_worker.ts", import.meta.url), {
      type: "module",
    });
    try {
      const lowered = await new Promise((resolve) => worker.onmessage = (e) => resolve(e.data));
      assertEquals(lowered, true);
      const after = niceByThread();
      const niced = [...after].filter(([tid, nice]) => nice === expected && !before.has(tid));
      assertEquals(niced.length, 1, "the worker's thread");
      assertEquals(after.get(String(Deno.pid)), main, "main unchanged");
      assertEquals([...after].filter(([, nice]) => nice !== main).length, 1, "no other thread");
    } finally {
      worker.terminate();
    }
  },
});
