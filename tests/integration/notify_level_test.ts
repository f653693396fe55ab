/**
 * A conversation's notification level decides which messages send the `notification` event
 * (desktop notifications and Web Push follow it): mentions only by default in a channel, every
 * message with "all" (marked as no mention), nothing when muted. A real ngircd, the real daemon.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { ApiClient } from "../support/api.ts";
import { EventSocket } from "../support/events.ts";
import { startServer } from "../support/server.ts";
import { startIrcServer } from "../support/ngircd.ts";
import { RawIrcClient } from "../support/irc_client.ts";

Deno.test("notification levels: what notifies in a channel", async (t) => {
  const irc = await startIrcServer();
  const server = await startServer({ env: { PARLEY_TEST_FAST_IRC: "1" } });
  const bob = await RawIrcClient.connect(irc.port, "bob");
  let socket: EventSocket | undefined;
  try {
    await bob.join("#tea");
    const api = new ApiClient(server.url);
    await api.register("fay@example.com");
    const conn = (await api.post("/api/connections", {
      url: `irc://127.0.0.1:${irc.port}/%23tea?nick=fay&tls=0`,
    })).body;
    await bob.waitForMember("#tea", "fay");
    socket = await EventSocket.open(api);
    const s = socket;
    const notified = (text: string) =>
      s.waitFor((e) => e.event === "notification" && e.message === text);
    const level = async (notify: string) => {
      const res = await api.post(
        `/api/connection/${conn.connection_id}/conversation/%23tea/notify`,
        { notify },
      );
      assertEquals(res.status, 200);
    };
    // A private line always notifies: once it has, every line bob said before it was handled.
    let n = 0;
    const settled = async () => {
      const text = `sentinel ${++n}`;
      await bob.send(`PRIVMSG fay :${text}`);
      await notified(text);
    };
    const notifiedAbout = (text: string) =>
      s.events.some((e) => e.event === "notification" && e.message === text);

    await t.step(
      "mentions only, by default: a mention notifies, a plain line does not",
      async () => {
        await bob.say("#tea", "just chatting");
        await bob.say("#tea", "fay: a mention");
        const ev = await notified("fay: a mention");
        assertEquals(ev.highlight, true);
        await settled();
        assert(!notifiedAbout("just chatting"), "a plain line notified");
      },
    );

    await t.step("all: every line notifies, as no mention", async () => {
      await level("all");
      await bob.say("#tea", "another plain line");
      const ev = await notified("another plain line");
      assertEquals(ev.highlight, false);
    });

    await t.step("muted: not even a mention notifies", async () => {
      await level("muted");
      await bob.say("#tea", "fay: are you there?");
      await settled();
      assert(!notifiedAbout("fay: are you there?"), "a muted channel notified");
      // The line itself still arrives, and the mention is still listed.
      assert(s.events.some((e) => e.event === "message" && e.message === "fay: are you there?"));
    });
  } finally {
    await socket?.close().catch(() => {});
    await bob.close().catch(() => {});
    await server.close();
    await irc.close();
  }
});
