/**
 * Out of file descriptors: a daemon limited to 256 open files is sent a few hundred idle
 * connections on its web and IRC ports (each holds a descriptor), past what it can accept. Once
 * they go, both ports serve again: an accept loop that ended at the failure would leave them bound
 * and unserved while the process went on.
 *
 * @test-alone: it opens hundreds of sockets from the test process, which tests beside it would
 * share.
 */
import { assertEquals, assertStringIncludes } from "../support/assert.ts";
import { poll } from "../support/poll.ts";
import { freePort } from "../support/ports.ts";
import { daemonProcess } from "../support/daemon_process.ts";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

Deno.test("out of file descriptors: the web and IRC ports serve again once connections go", async () => {
  const [port, ircPort] = [freePort(), freePort()];
  const home = await Deno.makeTempDir({ prefix: "parley-fds-" });
  const d = daemonProcess({
    PARLEY_HOME: home,
    PARLEY_LISTEN: `http://127.0.0.1:${port}`,
    PARLEY_IRC_LISTEN: `irc://127.0.0.1:${ircPort}`,
  }, ["prlimit", "--nofile=256:256", "--"]);
  const conns: Deno.Conn[] = [];
  try {
    await poll("ready", () => d.output().includes(" ready "));
    // Idle clients, as many as connect: a web one sends half a request and waits.
    for (const p of [port, ircPort]) {
      for (let i = 0; i < 300; i++) {
        const conn = await Promise.race([
          Deno.connect({ hostname: "127.0.0.1", port: p }).catch(() => undefined),
          sleep(500).then(() => undefined),
        ]);
        if (!conn) break;
        conns.push(conn);
        if (p !== port) continue;
        // A connection the kernel completed but the listener never took is reset when the
        // listener, out of descriptors, closes: the web port is full.
        const sent = await conn.write(new TextEncoder().encode("GET / HTTP/1.1\r\n"))
          .then(() => true, () => false);
        if (!sent) break;
      }
    }
    await poll(
      "both listeners out of descriptors",
      () =>
        d.output().includes("the web listener stopped") &&
        d.output().includes("irc:// listener cannot accept"),
    );
    for (const c of conns.splice(0)) c.close();

    await poll("the web serving again", async () => {
      try {
        const res = await fetch(`http://127.0.0.1:${port}/healthz`);
        await res.body?.cancel();
        return res.status === 200;
      } catch {
        return false;
      }
    }, 30_000);
    // (Until the closed clients are counted out, the address is over its count of clients.)
    const answer = await poll("the IRC port serving again", async () => {
      const irc = await Deno.connect({ hostname: "127.0.0.1", port: ircPort });
      try {
        await irc.write(new TextEncoder().encode("PING :back\r\n"));
        const buf = new Uint8Array(512);
        const n = await irc.read(buf);
        const text = new TextDecoder().decode(buf.subarray(0, n ?? 0));
        return text.includes("PONG") ? text : undefined;
      } finally {
        irc.close();
      }
    }, 30_000);
    assertStringIncludes(answer, "back");
    assertEquals(d.output().includes("panicked"), false, d.output());
  } finally {
    for (const c of conns) c.close();
    await d.stop();
    await Deno.remove(home, { recursive: true });
  }
});
