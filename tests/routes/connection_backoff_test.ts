// deno-lint-ignore-file no-explicit-any -- answers are read field by field
/**
 * A connection that cannot resolve its host, or whose port refuses, is tried again with a growing
 * delay up to the longest (10 minutes in production; FAST_TIMING's 500 ms here), and says why: the
 * reason the API gives is the one the sidebar and the chat view turn into plain words.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { startApp } from "../support/app.ts";
import { poll } from "../support/poll.ts";
import { FAST_TIMING } from "../../irc/engine/timing.ts";
import { plainReason } from "../../static/app/conn_error.ts";

Deno.test("unreachable connections back off to the longest delay and say why", async (t) => {
  const a = await startApp({ PARLEY_TEST_FAST_IRC: "1", PARLEY_IRC_ALLOW_PRIVATE: "1" });
  try {
    const admin = a.client();
    await admin.register("admin@example.com");
    const cases = [
      { url: "irc://parley-test.invalid:6667?nick=a", words: "Unknown host: parley-test.invalid" },
      {
        url: "irc://127.0.0.1:1?nick=b",
        words: "Connection refused: nothing listens on that port.",
      },
    ];
    for (const { url, words } of cases) {
      await t.step(url, async () => {
        const res = await admin.post("/api/connections", { url });
        assertEquals(res.status, 200, JSON.stringify(res.body));
        const id = res.body.connection_id;
        const delays: number[] = [];
        // Each failed attempt's delay, until one is past half the longest (its jitter's floor).
        const last = await poll("the delay to reach the longest", async () => {
          const c = (await admin.get("/api/connections")).body.connections
            .find((c: any) => c.connection_id === id);
          const ms = c?.info?.retry_in_ms;
          if (typeof ms === "number" && ms !== delays.at(-1)) delays.push(ms);
          return typeof ms === "number" && ms >= FAST_TIMING.backoffMax / 2 ? c : undefined;
        }, 30_000);
        assert(delays.every((ms) => ms <= FAST_TIMING.backoffMax), String(delays));
        assertEquals(last.state, "disconnected");
        assertEquals(plainReason(last.info.reason, new URL(url).hostname), words, last.info.reason);
      });
    }
  } finally {
    await a.close();
  }
});
