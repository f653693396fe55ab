/** What an operator reads when IRC fails: the failure and its retry at WARN, on stderr. */
import { assert, assertEquals } from "../support/assert.ts";
import { captureErrors, startApp } from "../support/app.ts";
import { freePort } from "../support/ports.ts";
import { poll } from "../support/poll.ts";

Deno.test("a connection that cannot connect logs WARN irc connect failed, with its retry", async () => {
  const a = await startApp({ PARLEY_TEST_FAST_IRC: "1" });
  try {
    const api = a.client();
    await api.register("warn@example.com");
    const port = freePort(); // nothing listens there
    const { lines } = await captureErrors(async () => {
      const made = await api.post("/api/connections", { url: `irc://127.0.0.1:${port}?nick=w` });
      assertEquals(made.status, 200, JSON.stringify(made.body));
      await poll("the attempt failed", async () => {
        const [c] = (await api.get("/api/connections")).body.connections;
        return c.state === "disconnected" && c.info?.retry_in_ms !== undefined;
      });
    });
    const line = lines.find((l) => l.includes("irc connect failed"));
    assert(line, `no failure on stderr:\n${lines.join("\n")}`);
    assert(/ WARN irc connect failed /.test(line), line);
    assert(/ retry_ms=\d+/.test(line), line);
    assert(/ reason=\S/.test(line), line);
  } finally {
    await a.close();
  }
});
