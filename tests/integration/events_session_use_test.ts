/**
 * An open page's /events socket counts as a use of its session: the session's expiry moves on
 * while the page is open, as an HTTP request's would, so a page left open is not logged out under
 * its user and is not the session used longest ago when a new one ends the oldest.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { ApiClient } from "../support/api.ts";
import { startApp } from "../support/app.ts";
import { EventSocket } from "../support/events.ts";
import { poll } from "../support/poll.ts";
import { sha256Hex } from "../../lib/crypto.ts";
import { DatabaseSync } from "node:sqlite";
import { join } from "node:path";

const HOUR = 3600 * 1000;

Deno.test("events: an open socket keeps its session in use", async () => {
  // Fast timings: the socket checks its session every 200 ms.
  const a = await startApp({ PARLEY_TEST_FAST_IRC: "1" });
  const server = await a.listen();
  let socket: EventSocket | undefined;
  const db = new DatabaseSync(join(a.home, "parley.db"));
  try {
    const api = new ApiClient(`http://127.0.0.1:${server.port}`);
    await api.register("page@example.com");
    const id = /(?:^|; )parley=([^;]+)/.exec(api.cookieHeader)?.[1];
    assert(id, "a session cookie");
    const hash = await sha256Hex(id);
    socket = await EventSocket.open(api);
    await socket.waitFor((e) => e.event === "handshake" && !e.errors);

    // As if the page had been opened hours ago and nothing but its socket had been used since.
    const hoursAgo = Date.now() - 3 * HOUR;
    db.prepare("UPDATE sessions SET expires = expires - ?, last_used = ? WHERE id_hash = ?")
      .run(3 * HOUR, hoursAgo, hash);
    const before = (await a.deps.store.sessions.get(hash))!.expires;
    // The socket's next session check records the use.
    const after = await poll("the session's expiry moved on", async () => {
      const s = await a.deps.store.sessions.get(hash);
      return s && s.expires > before + HOUR ? s.expires : undefined;
    });
    assert(after > Date.now() + 6 * 24 * HOUR, "a week from now again");
    const used = db.prepare("SELECT last_used FROM sessions WHERE id_hash = ?").get(hash) as {
      last_used: number;
    };
    assert(used.last_used > hoursAgo + HOUR, "its time of use is now");
    const listed = await api.get("/api/user/sessions");
    assertEquals(listed.body.sessions.length, 1);
    assertEquals(socket.ws.readyState, WebSocket.OPEN, "the socket is still open");
  } finally {
    db.close();
    await socket?.close();
    await server.stop();
    await a.close();
  }
});
