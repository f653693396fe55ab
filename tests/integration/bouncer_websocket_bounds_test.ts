/**
 * What a `/socket` client sends and the session has not read yet is bounded in bytes: 64 KB
 * before it is attached, 1 MB after, and a frame larger than that closes the socket as it comes
 * (the runtime would otherwise hand over frames of up to 64 MiB, each kept until read). The
 * listener goes on serving others.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { EMAIL, PASSWORD, setupBouncer } from "../support/bouncer.ts";
import { command, openIrcSocket } from "../support/irc_websocket.ts";
import { UNREAD_AFTER_LOGIN, UNREAD_BEFORE_LOGIN } from "../../bouncer/websocket.ts";
import { MAX_LINE_BYTES } from "../../bouncer/transport.ts";

/** A PING of nearly a line's length, numbered. */
const bigPing = (i: number) => `PING :n${i}-${"x".repeat(MAX_LINE_BYTES - 100)}`;

Deno.test("bouncer: unread WebSocket frames are bounded in bytes", async (t) => {
  // Read at 50 lines a second after a burst of 20: a burst of frames waits unread for a while.
  const s = await setupBouncer({ lineIntervalMs: 20, registerTimeoutMs: 60_000 });
  s.app.deps.bouncer = s.bouncer;
  const http = await s.app.listen();
  const url = `ws://127.0.0.1:${http.port}/socket`;
  const burst = 100; // 100 lines of 8.6 KB: over the bound before login, under it after
  assert(burst * MAX_LINE_BYTES > UNREAD_BEFORE_LOGIN + 20 * MAX_LINE_BYTES);
  assert(burst * MAX_LINE_BYTES < UNREAD_AFTER_LOGIN);
  try {
    await t.step("before login, a burst past 64 KB unread closes the socket", async () => {
      const c = await openIrcSocket(url);
      for (let i = 0; i < burst; i++) c.ws.send(bigPing(i));
      await c.waitClosed();
      assert(!c.lines.some((l) => l.includes(`n${burst - 1}-`)), "not all of it was read");
    });

    await t.step("before login, one frame past 64 KB closes the socket", async () => {
      const c = await openIrcSocket(url);
      c.ws.send(`PING :${"y".repeat(UNREAD_BEFORE_LOGIN)}`);
      await c.waitClosed();
      assertEquals(c.lines.filter((l) => command(l) === "417").length, 0);
    });

    const c = await openIrcSocket(url);
    await t.step("after login, the same burst is read whole", async () => {
      await c.login(`${EMAIL}/${s.cid}@burst`, PASSWORD);
      for (let i = 0; i < burst; i++) c.ws.send(bigPing(i));
      await c.waitFor((l) => command(l) === "PONG" && l.includes(`n${burst - 1}-`));
      assert(!c.closed);
      // A frame longer than a line but within the bound: 417, and the client goes on.
      c.ws.send(`PRIVMSG #x :${"z".repeat(MAX_LINE_BYTES + 1)}`);
      await c.waitFor((l) => command(l) === "417");
    });

    await t.step("after login, one frame past 1 MB closes the socket", async () => {
      c.ws.send(`PRIVMSG #x :${"z".repeat(2 * UNREAD_AFTER_LOGIN)}`);
      await c.waitClosed();
    });

    await t.step("the listener still serves", async () => {
      const c = await openIrcSocket(url);
      await c.login(`${EMAIL}/${s.cid}@after`, PASSWORD);
      assert(await c.served());
      c.ws.close();
      await c.waitClosed();
    });
  } finally {
    await http.stop();
    await s.close();
  }
});
