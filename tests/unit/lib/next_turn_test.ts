/** lib/next_turn.ts: slices of work yield without sleeping, and still let the runtime's I/O in. */
import { assert } from "../../support/assert.ts";
import { nextTurn } from "../../../lib/next_turn.ts";

/**
 * Runs 1 ms slices through nextTurn until `done()` or for `ms` at most. The bound only ends a
 * loop that never lets the request in; a loaded machine's slow answer just runs more slices.
 */
function busyLoop(done: () => boolean, ms: number): Promise<void> {
  const start = performance.now();
  return new Promise((resolve) => {
    const step = () => {
      const s = performance.now();
      while (performance.now() - s < 1) { /* a slice of work */ }
      if (done() || performance.now() - start > ms) resolve();
      else nextTurn(step);
    };
    nextTurn(step);
  });
}

Deno.test("nextTurn: an HTTP request is answered while slices run", async () => {
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    () => new Response("ok"),
  );
  try {
    let answered = false;
    const res = fetch(`http://127.0.0.1:${server.addr.port}/`).then(async (r) => {
      await r.text();
      answered = true;
    });
    // Without a timer turn now and then, the request waited until the loop had ended.
    await busyLoop(() => answered, 15_000);
    assert(answered, "the request was not answered during 15 s of slices");
    await res;
  } finally {
    await server.shutdown();
  }
});
