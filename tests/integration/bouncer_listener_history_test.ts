/**
 * History through the listener, over a real socket against a real ngircd: CHATHISTORY for a
 * client that asks (with the msgid it saw live), its FAIL for bad input, MARKREAD from a client
 * reaching the web client's unread count, reading in the web client reaching attached clients.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { EMAIL, PASSWORD, setupBouncer } from "../support/bouncer.ts";
import { BouncerClient } from "../support/bouncer_client.ts";
import { RawIrcClient } from "../support/irc_client.ts";
import { poll } from "../support/poll.ts";
import type { ApiClient } from "../support/api.ts";

const CAPS = ["batch", "server-time", "message-tags", "draft/chathistory", "draft/read-marker"];

async function unread(api: ApiClient, name: string): Promise<number | undefined> {
  const r = await api.get("/api/conversations");
  return r.body.conversations.find((c: { name: string }) => c.name === name)?.unread;
}

Deno.test("bouncer: CHATHISTORY and read markers through the listener", async (t) => {
  const s = await setupBouncer();
  const bob = await RawIrcClient.connect(s.ngircd.port, "bob");
  try {
    await s.app.deps.irc.send(1, s.cid, "", "/join #hist");
    await bob.join("#hist");
    await bob.waitForMember("#hist", "alice");
    const c = await BouncerClient.attach(s.port, `${EMAIL}/${s.cid}@hist`, PASSWORD, CAPS);
    await c.waitFor((l) => l.command === "366" && l.params[1] === "#hist");
    for (const text of ["first", "second", "third"]) await bob.say("#hist", text);
    const third = await c.waitFor((l) => l.command === "PRIVMSG" && l.params[1] === "third");

    await t.step("CHATHISTORY LATEST: a batch, oldest first, the live msgids", async () => {
      await c.send("CHATHISTORY LATEST #hist * 10");
      const open = await c.waitFor((l) => l.command === "BATCH" && l.params[1] === "chathistory");
      const id = open.params[0].slice(1);
      await c.waitFor((l) => l.command === "BATCH" && l.params[0] === `-${id}`);
      const lines = c.lines.filter((l) => l.tags.get("batch") === id && l.command === "PRIVMSG");
      assertEquals(lines.map((l) => l.params[1]), ["first", "second", "third"]);
      assertEquals(lines[2].tags.get("msgid"), third.tags.get("msgid"));
      const before = c.lines.length;
      await c.send(`CHATHISTORY BEFORE #hist msgid=${third.tags.get("msgid")} 1`);
      const next = await c.waitFor(
        (l) => l.command === "PRIVMSG" && l.params[1] === "second" && l.tags.has("batch"),
        before,
      );
      assert(next.tags.get("time"));
      await c.send("CHATHISTORY LATEST #hist bogus=1 10");
      const fail = await c.waitFor((l) => l.command === "FAIL" && l.params[0] === "CHATHISTORY");
      assert(fail.params[1].startsWith("INVALID"), fail.raw);
    });

    await t.step("MARKREAD from the client clears the web client's unread count", async () => {
      await poll("three unread", async () => await unread(s.api, "#hist") === 3);
      await c.send(`MARKREAD #hist timestamp=${third.tags.get("time")}`);
      await c.waitFor((l) => l.command === "MARKREAD" && l.params[0] === "#hist");
      await poll("read in the web client", async () => await unread(s.api, "#hist") === 0);
    });

    await t.step("reading in the web client sends MARKREAD to attached clients", async () => {
      const d = await BouncerClient.attach(s.port, `${EMAIL}/${s.cid}@other`, PASSWORD, CAPS, "d");
      await d.waitFor((l) => l.command === "366" && l.params[1] === "#hist");
      await bob.say("#hist", "fourth");
      await d.waitFor((l) => l.command === "PRIVMSG" && l.params[1] === "fourth");
      const from = d.lines.length;
      const read = await s.api.post(`/api/connection/${s.cid}/conversation/%23hist/read`, {});
      assertEquals(read.status, 200);
      const marker = await d.waitFor((l) => l.command === "MARKREAD", from);
      assertEquals(marker.params[0], "#hist");
      assert(marker.params[1].startsWith("timestamp="), marker.raw);
      d.close();
    });

    await t.step("history's lines come from the source they had live", async () => {
      // A join after the user's (bob's first may have come before it, then NAMES told it).
      await bob.send("PART #hist");
      await bob.join("#hist");
      const rejoined = await c.waitFor((l) => l.command === "JOIN" && l.prefix.startsWith("bob!"));
      await s.app.deps.irc.send(1, s.cid, "#hist", "mine");
      const mine = await c.waitFor((l) => l.command === "PRIVMSG" && l.params[1] === "mine");
      assert(mine.prefix.startsWith("alice!"), mine.raw);
      assert(third.prefix.startsWith("bob!"), third.raw);
      const e = await BouncerClient.attach(
        s.port,
        `${EMAIL}/${s.cid}@events`,
        PASSWORD,
        [...CAPS, "draft/event-playback"],
      );
      try {
        await e.waitFor((l) => l.command === "366" && l.params[1] === "#hist");
        const from = e.lines.length;
        await e.send("CHATHISTORY LATEST #hist * 30");
        await e.waitFor((l) => l.command === "BATCH" && l.params[0]?.startsWith("-"), from);
        const got = e.lines.slice(from);
        const said = (text: string) => got.find((l) => l.params[1] === text)?.prefix;
        assertEquals([said("third"), said("mine")], [third.prefix, mine.prefix]);
        const sourceOf = (command: string, nick: string) =>
          got.findLast((l) => l.command === command && l.prefix.startsWith(`${nick}!`))?.prefix;
        assertEquals(sourceOf("JOIN", "bob"), rejoined.prefix, "someone's join");
        assertEquals(sourceOf("PART", "bob"), rejoined.prefix, "someone's part");
        assertEquals(sourceOf("JOIN", "alice"), mine.prefix, "the user's own join");
      } finally {
        e.close();
      }
    });
    c.close();
  } finally {
    await bob.close();
    await s.close();
  }
});
