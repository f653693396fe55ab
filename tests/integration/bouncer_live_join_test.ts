/**
 * What draft/read-marker and draft/chathistory ask of live lines: after the user's own JOIN and
 * before its 366, the channel's read marker; and a line's time the same live and in
 * CHATHISTORY for the same msgid (messages and the channel events history keeps).
 */
import { assert, assertEquals } from "../support/assert.ts";
import { EMAIL, PASSWORD, setupBouncer } from "../support/bouncer.ts";
import { BouncerClient, type Received } from "../support/bouncer_client.ts";
import { RawIrcClient } from "../support/irc_client.ts";

const CAPS = [
  "batch",
  "server-time",
  "message-tags",
  "draft/chathistory",
  "draft/event-playback",
  "draft/read-marker",
];

Deno.test("bouncer: live JOIN gets its read marker; times agree with CHATHISTORY", async (t) => {
  const s = await setupBouncer();
  const bob = await RawIrcClient.connect(s.ngircd.port, "bob");
  let c: BouncerClient | undefined;
  try {
    c = await BouncerClient.attach(s.port, `${EMAIL}/${s.cid}@live`, PASSWORD, CAPS);
    const client = c;
    const at = c.lines.length;

    await t.step("MARKREAD after the JOIN, before the 366", async () => {
      await s.app.deps.irc.send(1, s.cid, "", "/join #fresh");
      const end = await client.waitFor((l) => l.command === "366" && l.params[1] === "#fresh", at);
      const lines = client.lines.slice(at);
      const join = lines.findIndex((l) => l.command === "JOIN" && l.params[0] === "#fresh");
      const marker = lines.findIndex((l) => l.command === "MARKREAD" && l.params[0] === "#fresh");
      assert(join >= 0, "the JOIN");
      assert(marker > join, lines.map((l) => l.raw).join("\n"));
      assert(marker < lines.indexOf(end), "before the 366");
      assertEquals(lines[marker].params[1], "*");
    });

    await t.step("the same time live and in CHATHISTORY for each msgid", async () => {
      const from = client.lines.length;
      await bob.join("#fresh");
      for (let i = 0; i < 5; i++) await bob.say("#fresh", `quick ${i}`);
      await bob.send("TOPIC #fresh :a topic");
      await bob.send("PART #fresh :bye");
      await bob.join("#fresh");
      await bob.say("#fresh", "last");
      await client.waitFor((l) => l.command === "PRIVMSG" && l.params[1] === "last", from);
      const live = client.lines.slice(from).filter((l) => l.tags.has("msgid"));
      const asked = client.lines.length;
      await client.send("CHATHISTORY LATEST #fresh * 50");
      const open = await client.waitFor((l) => l.command === "BATCH", asked);
      const id = open.params[0].slice(1);
      await client.waitFor((l) => l.command === "BATCH" && l.params[0] === `-${id}`, asked);
      const history = new Map<string, Received>();
      for (const l of client.lines.slice(asked)) {
        if (l.tags.get("batch") === id) history.set(l.tags.get("msgid")!, l);
      }
      const both = live.filter((l) => history.has(l.tags.get("msgid")!));
      // 2 joins, a part, a topic and 6 messages.
      assert(both.length >= 10, `${both.length} lines in both`);
      for (const l of both) {
        const h = history.get(l.tags.get("msgid")!)!;
        assertEquals([l.command, l.tags.get("time")], [h.command, h.tags.get("time")], l.raw);
      }
    });
  } finally {
    c?.close();
    await bob.close();
    await s.close();
  }
});
