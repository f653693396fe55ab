/**
 * While the daemon starts (here held there by a database that takes the connection and never
 * answers, a small silent server on loopback), its port is open: `/healthz` and the web client's
 * files are answered, everything else is 503 "Parley is starting.". A page open across a restart
 * may fetch a chunk in that window. After a few seconds the log names the database it waits for.
 */
import { assertEquals, assertStringIncludes } from "../support/assert.ts";
import { daemonProcess } from "../support/daemon_process.ts";
import { freePort } from "../support/ports.ts";
import { poll } from "../support/poll.ts";

Deno.test("a starting daemon serves the web client's files and says it is starting", async () => {
  const silent = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const held: Deno.Conn[] = [];
  const accepting = (async () => {
    for await (const c of silent) held.push(c);
  })();
  const home = await Deno.makeTempDir({ prefix: "parley-starting-" });
  const url = `http://127.0.0.1:${freePort()}`;
  const d = daemonProcess({
    PARLEY_HOME: home,
    PARLEY_LISTEN: url,
    PARLEY_BASE_URL: `${url}/parley/`,
    PARLEY_DATABASE_URL: `postgres://parley:pw@127.0.0.1:${(silent.addr as Deno.NetAddr).port}/db`,
  });
  const get = async (path: string) => {
    const res = await fetch(url + path);
    return { status: res.status, type: res.headers.get("content-type"), text: await res.text() };
  };
  try {
    await poll("the port open", async () => (await get("/healthz").catch(() => null)) !== null);
    await poll("the database asked", () => held.length > 0);
    assertEquals((await get("/healthz")).status, 200);
    for (const path of ["/dist/app.js", "/parley/dist/app.js", "/app.css", "/parley/sw.js"]) {
      const res = await get(path);
      assertEquals(res.status, 200, path);
    }
    for (const path of ["/api", "/parley/api/user", "/chat"]) {
      const res = await get(path);
      assertEquals(res.status, 503, path);
      assertEquals(JSON.parse(res.text).errors[0].message, "Parley is starting.");
    }
    assertEquals(d.output().includes(" ready "), false, "still starting");
    // The log says what the start waits for, and for how long it will (the port alone says 503).
    const port = (silent.addr as Deno.NetAddr).port;
    await poll("the wait named in the log", () => d.output().includes("waiting for the database"));
    assertStringIncludes(d.output(), `at=127.0.0.1:${port} gives_up_after_s=30`);
  } finally {
    d.signal("SIGKILL");
    await d.exited();
    silent.close();
    for (const c of held) c.close();
    await accepting.catch(() => {});
    await Deno.remove(home, { recursive: true });
  }
});
