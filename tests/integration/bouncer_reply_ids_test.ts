/**
 * Replies and reactions name lines across the server's msgids and Parley's, for lines stored
 * before any IRC client attached (so never relayed, only in the store): live both ways, and in
 * CHATHISTORY, where a reply carries `+draft/reply` and a reaction comes as its TAGMSG. Against a
 * scripted server offering message-tags, which Parley's lines reach as it sends them.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { EMAIL, PASSWORD, setupBouncerOn } from "../support/bouncer.ts";
import { BouncerClient } from "../support/bouncer_client.ts";
import { startHostileIrc } from "../support/hostile_irc.ts";
import { poll } from "../support/poll.ts";

Deno.test("reply ids: lines stored before a client attached are named by their own ids", async (t) => {
  const irc = startHostileIrc({ caps: ["message-tags"] });
  const s = await setupBouncerOn(irc.url);
  const server = irc.clients[0];
  const stored = async (text: string) =>
    await poll(`"${text}" stored`, async () => {
      await s.app.deps.store.messages.flush();
      const r = await s.api.get(`/api/connection/${s.cid}/conversation/%23chan/messages`);
      return (r.body.messages as { message: string }[]).some((m) => m.message === text);
    });
  try {
    await s.app.deps.irc.send(1, s.cid, "", "/join #chan");
    await server.waitFor((l) => l === "JOIN #chan");
    await server.send(":alice!alice@host JOIN #chan");
    await server.send(":irc.hostile.test 366 alice #chan :End of /NAMES list.");
    // No IRC client has attached yet: these are in the store only.
    await server.send("@msgid=srv-q :bob!bob@host PRIVMSG #chan :a question");
    await server.send("@msgid=srv-a;+draft/reply=srv-q :bob!bob@host PRIVMSG #chan :its answer");
    await server.send("@+draft/react=👍;+draft/reply=srv-q :bob!bob@host TAGMSG #chan");
    await stored("its answer");
    await poll("the reaction stored", async () => {
      const r = await s.api.get(`/api/connection/${s.cid}/conversation/%23chan/messages`);
      return (r.body.messages as { type: string }[]).some((m) => m.type === "react");
    });

    const user = `${EMAIL}/${s.cid}`;
    const caps = ["message-tags", "batch", "server-time", "draft/chathistory"];
    const a = await BouncerClient.attach(s.port, `${user}@a`, PASSWORD, caps, "a");
    const b = await BouncerClient.attach(
      s.port,
      `${user}@b`,
      PASSWORD,
      [...caps, "draft/event-playback"],
      "b",
    );
    try {
      await a.waitFor((l) => l.command === "366");
      await b.waitFor((l) => l.command === "366");
      const history = async (c: BouncerClient) => {
        const from = c.lines.length;
        await c.send("CHATHISTORY LATEST #chan * 10");
        await c.waitFor((l) => l.command === "BATCH" && l.params[0]?.startsWith("-"), from);
        return c.lines.slice(from);
      };
      const lines = await history(a);
      const question = lines.find((l) => l.params[1] === "a question")!;
      const answer = lines.find((l) => l.params[1] === "its answer")!;
      const own = question.tags.get("msgid")!;
      assert(own && own !== "srv-q", question.raw);

      await t.step("CHATHISTORY: a reply names the line's own msgid", () => {
        assertEquals(answer.tags.get("+draft/reply"), own, answer.raw);
        assertEquals(answer.prefix, "bob!bob@host", "from its whole source, as it came");
        assertEquals(lines.filter((l) => l.command === "TAGMSG"), [], "no events asked for");
      });

      await t.step("CHATHISTORY with event-playback: a reaction is its TAGMSG", async () => {
        const react = (await history(b)).find((l) => l.command === "TAGMSG");
        assert(react, "the reaction is played back");
        assertEquals(react.prefix, "bob!bob@host", "from its whole source, as it came");
        assertEquals(react.params, ["#chan"]);
        assertEquals(react.tags.get("+draft/react"), "👍");
        assertEquals(react.tags.get("+draft/reply"), own);
        assert(react.tags.get("msgid"), react.raw);
      });

      await t.step("CHATHISTORY: a reply to a line not given with it", async () => {
        const from = a.lines.length;
        await a.send(`CHATHISTORY AFTER #chan msgid=${own} 1`);
        const got = await a.waitFor((l) => l.params[1] === "its answer", from);
        assertEquals(got.tags.get("+draft/reply"), own, got.raw);
      });

      await t.step("live: a reply to a line never relayed names its own msgid", async () => {
        await server.send("@msgid=srv-late;+draft/reply=srv-q :bob!bob@host PRIVMSG #chan :late");
        await server.send(":bob!bob@host PRIVMSG #chan :and then");
        await a.waitFor((l) => l.params[1] === "and then");
        const late = a.lines.findIndex((l) => l.params[1] === "late");
        assertEquals(a.lines[late].tags.get("+draft/reply"), own, a.lines[late].raw);
        // The line waited for the store in the server's order: the next one came after it.
        assert(late >= 0 && late < a.lines.findIndex((l) => l.params[1] === "and then"));
      });

      await t.step("a reaction has the same msgid and time live and in CHATHISTORY", async () => {
        await server.send("@+draft/react=❤;+draft/reply=srv-q :bob!bob@host TAGMSG #chan");
        const live = await b.waitFor((l) => l.tags.get("+draft/react") === "❤");
        assertEquals(live.tags.get("+draft/reply"), own, live.raw);
        await stored("late");
        const kept = (await history(b)).find((l) => l.tags.get("+draft/react") === "❤");
        assert(kept, "the reaction is played back");
        assertEquals(
          [kept.tags.get("msgid"), kept.tags.get("time"), kept.tags.get("+draft/reply")],
          [live.tags.get("msgid"), live.tags.get("time"), own],
        );
      });

      await t.step(
        "live: a client's reply reaches the server with the server's msgid",
        async () => {
          await a.send(`@+draft/reply=${own} PRIVMSG #chan :me too`);
          const up = await server.waitFor((l) => l.endsWith("PRIVMSG #chan :me too"));
          assertEquals(up, "@+draft/reply=srv-q PRIVMSG #chan :me too");
          await a.send(`@+draft/react=🎉;+draft/reply=${own} TAGMSG #chan`);
          const react = await server.waitFor((l) => l.includes("+draft/react=🎉"));
          assertEquals(react, "@+draft/react=🎉;+draft/reply=srv-q TAGMSG #chan");
          // The other client is told the reaction by the id it knows.
          const seen = await b.waitFor((l) => l.tags.get("+draft/react") === "🎉");
          assertEquals(seen.tags.get("+draft/reply"), own, seen.raw);
        },
      );

      await t.step("SEARCH: a reply names the line's own msgid", async () => {
        await s.app.searchable();
        const d = await BouncerClient.attach(
          s.port,
          `${user}@d`,
          PASSWORD,
          ["soju.im/search", "batch", "server-time", "message-tags"],
          "d",
        );
        try {
          await d.waitFor((l) => l.command === "366");
          await d.send("SEARCH in=#chan;text=answer");
          const open = await d.waitFor((l) =>
            l.command === "BATCH" && l.params[1] === "soju.im/search"
          );
          const id = open.params[0].slice(1);
          // In the search's batch (the replay on attach has the line too).
          const found = await d.waitFor((l) =>
            l.tags.get("batch") === id && l.params[1] === "its answer"
          );
          assertEquals(found.tags.get("+draft/reply"), own, found.raw);
        } finally {
          d.close();
        }
      });

      await t.step("an id the store does not have is passed on as it is", async () => {
        await a.send("@+draft/reply=zz.zzzz PRIVMSG #chan :to nothing");
        const up = await server.waitFor((l) => l.endsWith("PRIVMSG #chan :to nothing"));
        assertEquals(up, "@+draft/reply=zz.zzzz PRIVMSG #chan :to nothing");
      });
    } finally {
      a.close();
      b.close();
    }
  } finally {
    await s.close();
    await irc.close();
  }
});
