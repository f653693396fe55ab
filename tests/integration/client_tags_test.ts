/**
 * IRCv3 client tags: typing (`+typing`), reactions (`+draft/react` with `+draft/reply`) and replies
 * (`+draft/reply` on a PRIVMSG) reach the web client (the bus) and attached IRC clients, and the
 * web client's go out as tagged lines. Against a scripted server offering message-tags and
 * echo-message, which echoes what Parley sends as a real one would.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { EMAIL, PASSWORD, setupBouncerOn } from "../support/bouncer.ts";
import { BouncerClient } from "../support/bouncer_client.ts";
import { startHostileIrc } from "../support/hostile_irc.ts";
import { poll } from "../support/poll.ts";
import type { BusEvent } from "../../protocol/events.ts";

Deno.test("client tags: typing, reactions and replies in both directions", async (t) => {
  const irc = startHostileIrc({ caps: ["message-tags", "echo-message"] });
  const s = await setupBouncerOn(irc.url);
  const server = irc.clients[0];
  const events: BusEvent[] = [];
  const unsubscribe = s.app.deps.bus.subscribe(1, (ev) => void events.push(ev));
  const state = (type: string) =>
    events.filter((e) => e.event === "state" && e.type === type) as unknown as Record<
      string,
      string
    >[];
  try {
    await s.app.deps.irc.send(1, s.cid, "", "/join #chan");
    await server.waitFor((l) => l === "JOIN #chan");
    await server.send(":alice!alice@host JOIN #chan");
    await server.send(":irc.hostile.test 366 alice #chan :End of /NAMES list.");
    await poll("alice is in #chan", async () => {
      const r = await s.api.get("/api/conversations");
      return r.body.conversations.some((c: { name: string }) => c.name === "#chan");
    });
    const user = `${EMAIL}/${s.cid}`;
    const a = await BouncerClient.attach(s.port, `${user}@a`, PASSWORD, ["message-tags"], "a");
    await a.waitFor((l) => l.command === "366");
    try {
      await t.step("someone's typing and reaction reach the web and the IRC client", async () => {
        await server.send("@+typing=active :bob!bob@host TAGMSG #chan");
        await server.send("@+draft/react=👍;+draft/reply=srv1 :bob!bob@host TAGMSG #chan");
        await poll("typing on the bus", () => state("typing").length > 0);
        assertEquals(state("typing")[0].nick, "bob");
        assertEquals(state("typing")[0].typing, "active");
        assertEquals(state("typing")[0].conversation_id, "#chan");
        await poll("reaction on the bus", () => state("react").length > 0);
        const react = state("react")[0];
        assertEquals([react.nick, react.react, react.reply_to], ["bob", "👍", "srv1"]);
        const seen = await a.waitFor((l) => l.command === "TAGMSG" && !!l.tags.get("+draft/react"));
        assertEquals(seen.tags.get("+draft/reply"), "srv1");
      });

      await t.step("someone ignored types and reacts unseen", async () => {
        await s.app.deps.irc.send(1, s.cid, "", "/ignore carol");
        await server.send("@+typing=active :carol!c@host TAGMSG #chan");
        await server.send("@+draft/react=👎;+draft/reply=srv1 :carol!c@host TAGMSG #chan");
        // A line after them, handled after them: once it is on the bus, theirs would be too.
        await server.send("@+typing=done :bob!bob@host TAGMSG #chan");
        await poll("bob's done", () => state("typing").some((e) => e.typing === "done"));
        assertEquals(state("typing").filter((e) => e.nick === "carol"), []);
        assertEquals(state("react").filter((e) => e.nick === "carol"), []);
      });

      await t.step("a reply keeps the server's msgid and the one it answers", async () => {
        await server.send("@msgid=srv1 :bob!bob@host PRIVMSG #chan :first");
        await server.send("@msgid=srv2;+draft/reply=srv1 :bob!bob@host PRIVMSG #chan :answer");
        const message = (text: string) =>
          events.find((e) => e.event === "message" && e.message === text) as
            | Record<string, string>
            | undefined;
        await poll("both stored", () => !!message("first") && !!message("answer"));
        assertEquals(message("first")?.server_msgid, "srv1");
        assertEquals(message("answer")?.server_msgid, "srv2");
        assertEquals(message("answer")?.reply_to, "srv1");
      });

      await t.step("an IRC client on the listener names lines by the ids it was told", async () => {
        const first = await a.waitFor((l) => l.command === "PRIVMSG" && l.params[1] === "first");
        const own = first.tags.get("msgid")!;
        assert(own && own !== "srv1", first.raw);
        const answer = await a.waitFor((l) => l.command === "PRIVMSG" && l.params[1] === "answer");
        assertEquals(answer.tags.get("+draft/reply"), own, "a reply names the line's own id");
        await server.send("@+draft/react=🚀;+draft/reply=srv1 :bob!bob@host TAGMSG #chan");
        const r = await a.waitFor((l) => l.tags.get("+draft/react") === "🚀");
        assertEquals(r.tags.get("+draft/reply"), own, "so does a reaction");
        await a.send(`@+draft/react=👀;+draft/reply=${own} TAGMSG #chan`);
        const up = await server.waitFor((l) => l.includes("+draft/react=👀"));
        assertEquals(up, "@+draft/react=👀;+draft/reply=srv1 TAGMSG #chan", "the server's to it");
        // The server echoes it (echo-message): that is the sender's, which has no echo-message.
        await server.send(`@+draft/react=👀;+draft/reply=srv1 :alice!alice@host TAGMSG #chan`);
      });

      await t.step("after a reload, history has the ids and the reaction", async () => {
        await s.app.deps.store.messages.flush();
        const r = await s.api.get(`/api/connection/${s.cid}/conversation/%23chan/messages`);
        const rows = r.body.messages as Record<string, string>[];
        const first = rows.find((m) => m.message === "first");
        const answer = rows.find((m) => m.message === "answer");
        assertEquals([first?.server_msgid, answer?.server_msgid], ["srv1", "srv2"]);
        assertEquals(answer?.reply_to, "srv1");
        const react = rows.find((m) => m.type === "react");
        assertEquals([react?.from, react?.message, react?.reply_to], ["bob", "👍", "srv1"]);
      });

      await t.step("the web's typing and reaction go out as TAGMSG, and come back", async () => {
        await s.app.deps.irc.send(1, s.cid, "#chan", "/quote @+typing=active TAGMSG #chan");
        const up = await server.waitFor((l) => l.endsWith("TAGMSG #chan") && l.includes("typing"));
        assertEquals(up, "@+typing=active TAGMSG #chan");
        const react = "/quote @+draft/react=🎉;+draft/reply=srv2 TAGMSG #chan";
        await s.app.deps.irc.send(1, s.cid, "#chan", react);
        const r = await server.waitFor((l) => l.includes("+draft/react=🎉"));
        assertEquals(r, "@+draft/react=🎉;+draft/reply=srv2 TAGMSG #chan");
        // The server's echo (echo-message) is what every device and attached client sees.
        await server.send("@+draft/react=🎉;+draft/reply=srv2 :alice!alice@host TAGMSG #chan");
        await poll("own reaction on the bus", () => state("react").some((e) => e.nick === "alice"));
        const mine = await a.waitFor((l) =>
          l.command === "TAGMSG" && l.tags.get("+draft/react") === "🎉"
        );
        assert(mine.prefix.startsWith("alice"), mine.raw);
      });
    } finally {
      a.close();
    }
  } finally {
    unsubscribe();
    await s.close();
    await irc.close();
  }
});
