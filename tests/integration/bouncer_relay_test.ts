/**
 * The listener's finer points against a real ngircd: replies to the web client's own queries and
 * raw lines reach no attached client (the raw lines' are shown to the web), a line Parley will not store holds nothing back, a labeled JOIN or PART is
 * answered by the server's own answer, a live channel event carries its stored msgid, a removed
 * connection's hub is freed, and a gap in history is replayed as a NOTICE from Parley.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { EMAIL, PASSWORD, setupBouncer } from "../support/bouncer.ts";
import { BouncerClient } from "../support/bouncer_client.ts";
import { RawIrcClient } from "../support/irc_client.ts";
import { poll } from "../support/poll.ts";
import type { IrcManager } from "../../irc/manager.ts";

const CAPS = ["server-time", "message-tags", "labeled-response", "batch", "echo-message"];

/** Sends PING and waits for its PONG: every line queued for the client before it has come. */
async function sync(c: BouncerClient, token: string): Promise<number> {
  await c.send(`PING :${token}`);
  await c.waitFor((l) => l.command === "PONG" && l.params[1] === token);
  return c.lines.findIndex((l) => l.command === "PONG" && l.params[1] === token);
}

Deno.test("bouncer: the web client's queries, unstored lines, labels, removal, gaps", async (t) => {
  const s = await setupBouncer();
  const bob = await RawIrcClient.connect(s.ngircd.port, "bob");
  try {
    await s.app.deps.irc.send(1, s.cid, "", "/join #loose");
    await bob.join("#loose");
    await bob.waitForMember("#loose", "alice");
    const c = await BouncerClient.attach(s.port, `${EMAIL}/${s.cid}@loose`, PASSWORD, CAPS);
    await c.waitFor((l) => l.command === "366" && l.params[1] === "#loose");

    await t.step("a /whois typed in the web client is answered to it alone", async () => {
      const from = c.lines.length;
      const reply = await s.app.deps.irc.send(1, s.cid, "", "/whois bob");
      assert(JSON.stringify(reply).includes("bob"), JSON.stringify(reply));
      await sync(c, "whois");
      const seen = c.lines.slice(from).filter((l) => /^3(11|18)$/.test(l.command));
      assertEquals(seen.map((l) => l.raw), []);
    });

    await t.step("a /quote of the web client's is answered to it alone, and back", async () => {
      const server = async () =>
        ((await s.api.get(`/api/connection/${s.cid}/messages`)).body.messages ?? []) as {
          message: string;
        }[];
      // ngircd's 391 (TIME) names the server, then the time.
      const times = async () => (await server()).filter((m) => /\d\d:\d\d/.test(m.message));
      const before = (await times()).length;
      const from = c.lines.length;
      await s.app.deps.irc.send(1, s.cid, "", "/quote TIME");
      await poll("the web client shows the answer", async () => (await times()).length > before);
      // The client's own TIME, twice, answered after the web's: each answer is the client's
      // alone (its lines leave the web nothing to wait for that would take the second).
      const theirs = () => c.lines.slice(from).filter((l) => l.command === "391").length;
      await c.send("TIME");
      await poll("the client's first answer", () => theirs() === 1);
      await c.send("TIME");
      await poll("the client's second answer", () => theirs() === 2);
      // ngircd's 351 (VERSION) names it, and comes after the client's answer: that one was
      // handled once this one shows.
      const versions = async () => (await server()).filter((m) => /ngircd/i.test(m.message));
      const known = (await versions()).length;
      await s.app.deps.irc.send(1, s.cid, "", "/quote VERSION");
      await poll("the web client shows the version", async () => (await versions()).length > known);
      assertEquals((await times()).length, before + 1, "the client's answers shown to the web");
      assertEquals(theirs(), 2);
      await sync(c, "quote");
      const versionsSent = c.lines.slice(from).filter((l) => l.command === "351");
      assertEquals(versionsSent.map((l) => l.raw), [], "the web's answer sent to the client");
    });

    await t.step("a refusal is shown to whoever asked: a client, or the web client", async () => {
      // bob's channel: alice is no operator there.
      await bob.join("#bobs");
      await s.app.deps.irc.send(1, s.cid, "", "/join #bobs");
      await c.waitFor((l) => l.command === "366" && l.params[1] === "#bobs");
      const server = async () =>
        ((await s.api.get(`/api/connection/${s.cid}/messages`)).body.messages ?? []) as {
          message: string;
        }[];
      const refusals = async () => (await server()).filter((m) => m.message.startsWith("#bobs: "));
      const from = c.lines.length;
      const theirs = () => c.lines.slice(from).filter((l) => l.command === "482").length;
      await c.send("KICK #bobs bob");
      await poll("the client's refusal", () => theirs() === 1);
      // The web client's own refusal comes after the client's: that one was handled once this
      // one shows.
      await s.app.deps.irc.send(1, s.cid, "", "/quote KICK #bobs bob :again");
      await poll("the web client's refusal shown", async () => (await refusals()).length > 0);
      assertEquals((await refusals()).length, 1, "the client's refusal shown to the web");
      await sync(c, "refusals");
      assertEquals(theirs(), 1, "the web client's refusal sent to the client");
    });

    await t.step("ngircd's HELP (notices, no end) is answered to the client alone", async () => {
      const other = await BouncerClient.attach(
        s.port,
        `${EMAIL}/${s.cid}@other`,
        PASSWORD,
        CAPS,
        "other",
      );
      try {
        await other.waitFor((l) => l.command === "366" && l.params[1] === "#loose");
        const [from, fromOther] = [c.lines.length, other.lines.length];
        // ngircd's help of PRIVMSG opens with its syntax: in the web client's server messages
        // only when it asked.
        const shown = async () => {
          const r = await s.api.get(`/api/connection/${s.cid}/messages?limit=200`);
          return (r.body.messages as { message: string }[]).filter((m) =>
            m.message.startsWith("PRIVMSG <target>")
          ).length;
        };
        const atFirst = await shown();
        // The server's notices (its name as their source).
        const help = (l: { command: string; prefix: string }) =>
          l.command === "NOTICE" && !!l.prefix && !l.prefix.includes("!");
        await c.send("HELP PRIVMSG");
        await c.waitFor((l) => help(l) && /<target>/.test(l.params[1] ?? ""));
        // Said after the help's last notice: once the other client has it, it had the help too.
        await bob.send("PRIVMSG #loose :after the help");
        await other.waitFor((l) => l.command === "PRIVMSG" && l.params[1] === "after the help");
        await c.waitFor((l) => l.command === "PRIVMSG" && l.params[1] === "after the help");
        assertEquals(other.lines.slice(fromOther).filter(help).map((l) => l.raw), []);
        assert(c.lines.slice(from).filter(help).length > 20, "the whole help");
        // The PING that ends it is Parley's: its PONG goes to nobody.
        assert(!c.lines.slice(from).some((l) => l.command === "PONG"), "the fence's PONG");
        // A HELP typed in the web client: shown there, sent to no client.
        const [fromC, fromO] = [c.lines.length, other.lines.length];
        const before = await shown();
        assertEquals(before, atFirst, "the client's help shown in the web client");
        await s.app.deps.irc.send(1, s.cid, "", "/quote HELP PRIVMSG");
        await poll("the web client shows the help", async () => (await shown()) === before + 1);
        await bob.send("PRIVMSG #loose :after the web's help");
        for (const client of [c, other]) {
          await client.waitFor((l) =>
            l.command === "PRIVMSG" && l.params[1] === "after the web's help"
          );
        }
        assertEquals(c.lines.slice(fromC).filter(help).map((l) => l.raw), []);
        assertEquals(other.lines.slice(fromO).filter(help).map((l) => l.raw), []);

        // Two clients' HELPs held by the flood control, then written in one turn: each one's
        // fence right behind it, so each gets its own help.
        const record = (await s.app.deps.store.connections.get(1, s.cid))!;
        const conn = (s.app.deps.irc as IrcManager).live(record.id)!;
        const [fromC2, fromO2] = [c.lines.length, other.lines.length];
        conn.setBurst(0);
        await c.send("HELP PRIVMSG");
        await other.send("HELP JOIN");
        await sync(c, "queued");
        await sync(other, "queued");
        conn.setBurst(20);
        await s.app.deps.irc.send(1, s.cid, "#loose", "the flood control opens");
        await c.waitFor((l) => help(l) && /<target>/.test(l.params[1] ?? ""), fromC2);
        await other.waitFor((l) => help(l) && /^JOIN /.test(l.params[1] ?? ""), fromO2);
        await bob.send("PRIVMSG #loose :after both helps");
        for (const client of [c, other]) {
          await client.waitFor((l) =>
            l.command === "PRIVMSG" && l.params[1] === "after both helps"
          );
        }
        const texts = (lines: typeof c.lines) => lines.filter(help).map((l) => l.params[1] ?? "");
        assertEquals(texts(c.lines.slice(fromC2)).filter((t) => /^JOIN /.test(t)), []);
        assertEquals(texts(other.lines.slice(fromO2)).filter((t) => /<target>/.test(t)), []);
      } finally {
        other.close();
      }
    });

    await t.step("an ignored person's line holds back none of the lines after it", async () => {
      await s.app.deps.irc.send(1, s.cid, "", "/ignore bob");
      const from = c.lines.length;
      // One write: the ignored line, then a line that is not a chat line.
      await bob.send("PRIVMSG #loose :ignore me\r\nTOPIC #loose :after the ignored line");
      await poll("the web client has the topic", async () => {
        const r = await s.api.get("/api/conversations");
        return r.body.conversations.some((c: { topic: string }) =>
          c.topic === "after the ignored line"
        );
      });
      const pong = await sync(c, "ignored");
      const topic = c.lines.findIndex((l, i) =>
        i >= from && l.command === "TOPIC" && l.params[1] === "after the ignored line"
      );
      assert(topic >= 0 && topic < pong, "the TOPIC waited behind the ignored line");
      assert(!c.lines.slice(from).some((l) => l.params[1] === "ignore me"), "shown anyway");
      await s.app.deps.irc.send(1, s.cid, "", "/unignore bob");
    });

    await t.step(
      "a private line past the conversation limit goes out at once, as sent",
      async () => {
        const count = (await s.api.get("/api/conversations")).body.conversations.length;
        const set = await s.api.post("/api/settings", { max_conversations_per_connection: count });
        assertEquals(set.status, 200, JSON.stringify(set.body));
        const dave = await RawIrcClient.connect(s.ngircd.port, "dave");
        const from = c.lines.length;
        await dave.send("PRIVMSG alice :no room for me\r\nJOIN #loose");
        await c.waitFor((l) => l.command === "JOIN" && l.prefix.startsWith("dave!"), from);
        // The JOIN came: the line before it was settled (shown as sent, or dropped).
        const pong = await sync(c, "cap");
        const said = c.lines.findIndex((l, i) =>
          i >= from && l.command === "PRIVMSG" && l.params[1] === "no room for me"
        );
        const join = c.lines.findIndex((l, i) =>
          i >= from && l.command === "JOIN" && l.prefix.startsWith("dave!")
        );
        assert(said >= 0 && said < join && join < pong, "not shown, or out of order");
        await s.api.post("/api/settings", { max_conversations_per_connection: 1000 });
        await dave.close();
      },
    );

    await t.step("a labeled JOIN and PART get the server's answer with the label", async () => {
      const from = c.lines.length;
      await c.send("@label=j1 JOIN #labeled");
      const join = await c.waitFor((l) => l.command === "JOIN" && l.params[0] === "#labeled", from);
      assertEquals(join.tags.get("label"), "j1");
      await c.send("@label=p1 PART #labeled :bye");
      const part = await c.waitFor((l) => l.command === "PART" && l.params[0] === "#labeled", from);
      assertEquals(part.tags.get("label"), "p1");
      await c.send("@label=p2 PART #nowhere");
      const refused = await c.waitFor((l) => l.command === "442" || l.command === "403", from);
      assertEquals(refused.tags.get("label"), "p2");
      assert(
        !c.lines.slice(from).some((l) => l.command === "ACK"),
        "answered with an ACK instead",
      );
    });

    await t.step("a live PART carries the msgid history gives it", async () => {
      const d = await BouncerClient.attach(s.port, `${EMAIL}/${s.cid}@events`, PASSWORD, [
        ...CAPS,
        "draft/chathistory",
        "draft/event-playback",
      ], "events");
      await d.waitFor((l) => l.command === "366" && l.params[1] === "#loose");
      const carol = await RawIrcClient.connect(s.ngircd.port, "carol");
      await carol.join("#loose");
      const join = await d.waitFor((l) => l.command === "JOIN" && l.prefix.startsWith("carol!"));
      await carol.send("PART #loose :gone");
      const part = await d.waitFor((l) => l.command === "PART" && l.prefix.startsWith("carol!"));
      await d.send("CHATHISTORY LATEST #loose * 10");
      const open = await d.waitFor((l) => l.command === "BATCH" && l.params[1] === "chathistory");
      const id = open.params[0].slice(1);
      await d.waitFor((l) => l.command === "BATCH" && l.params[0] === `-${id}`);
      const mine = d.lines.filter((l) =>
        l.tags.get("batch") === id && l.prefix.startsWith("carol")
      );
      assertEquals(mine.map((l) => l.command), ["JOIN", "PART"]);
      assertEquals(
        mine.map((l) => l.tags.get("msgid")),
        [join, part].map((l) => l.tags.get("msgid")),
      );
      await carol.close();
      d.close();
    });

    await t.step("a gap in history is replayed as a NOTICE from Parley", async () => {
      const conv = (await s.app.deps.store.conversations.listForConnection(
        (await s.app.deps.store.connections.get(1, s.cid))!.id,
      )).find((c) => c.conversationId === "#loose")!;
      await s.app.deps.store.messages.append({
        conversation: conv.id,
        userId: 1,
        from: "",
        type: "gap",
        text: "Parley was not connected here for a while.",
        ts: Date.now() * 1000,
        highlight: false,
      });
      await s.app.deps.store.messages.flush();
      const d = await BouncerClient.attach(s.port, `${EMAIL}/${s.cid}@gap`, PASSWORD, [], "gap");
      const notice = await d.waitFor((l) =>
        l.command === "NOTICE" && l.params[1] === "Parley was not connected here for a while."
      );
      assert(notice.prefix === "parley", notice.raw);
      assertEquals(notice.params[0], "#loose");
      d.close();
    });

    await t.step("a removed connection's hub is freed and its clients told", async () => {
      const made = await s.api.post("/api/connections", {
        url: `irc://127.0.0.1:${s.ngircd.port}?nick=alice2`,
      });
      const cid2 = made.body.connection_id as string;
      await poll("connected", async () => {
        const r = await s.api.get("/api/connections");
        return r.body.connections.find((x: { connection_id: string }) => x.connection_id === cid2)
          ?.state === "connected";
      });
      const d = await BouncerClient.attach(s.port, `${EMAIL}/${cid2}`, PASSWORD, [], "gone");
      await d.waitFor((l) => l.command === "001");
      await poll("attached", () => s.bouncer.relay.existing(1, cid2)?.clients.size === 1);
      const removed = await s.api.delete(`/api/connection/${cid2}`);
      assertEquals(removed.status, 200, JSON.stringify(removed.body));
      await d.waitClosed();
      assertEquals(s.bouncer.relay.existing(1, cid2), undefined, "the hub is still kept");
    });
    c.close();
  } finally {
    await bob.close();
    await s.close();
  }
});
