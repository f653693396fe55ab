/**
 * labeled-response, sentence by sentence, against the listener on a real ngircd (which has no
 * labeled-response itself: Parley tells each answer by its own queue). docs/bouncer.md lists each
 * MUST and SHOULD with the step that tests it.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { EMAIL, PASSWORD, setupBouncer } from "../support/bouncer.ts";
import { BouncerClient } from "../support/bouncer_client.ts";
import { RawIrcClient } from "../support/irc_client.ts";
import { got, labeled, sync } from "../support/spec_client.ts";

const CAPS = [
  "labeled-response",
  "batch",
  "message-tags",
  "server-time",
  "draft/chathistory",
  "draft/read-marker",
];

Deno.test("spec labeled-response: a label on every answer, errors included", async (t) => {
  const s = await setupBouncer();
  const bob = await RawIrcClient.connect(s.ngircd.port, "bob");
  const user = `${EMAIL}/${s.cid}`;
  await s.app.deps.irc.send(1, s.cid, "", "/join #lab");
  const c = await BouncerClient.attach(s.port, `${user}@lab`, PASSWORD, CAPS, "lab");
  const other = await BouncerClient.attach(s.port, `${user}@other`, PASSWORD, CAPS, "other");
  try {
    await c.waitFor((l) => l.command === "366" && l.params[1] === "#lab");
    await bob.join("#lab");
    await bob.say("#lab", "something to fetch");
    await c.waitFor((l) => l.command === "PRIVMSG" && l.params[1] === "something to fetch");

    await t.step(
      "several replies: one labeled-response batch, the label on its start",
      async () => {
        const a = await labeled(c, "w1", "WHOIS bob");
        assert(a.batch, a.lines.map((l) => l.raw).join("\n"));
        assertEquals(a.batch.params[1], "labeled-response");
        assertEquals(a.lines.filter((l) => l.tags.has("label")).length, 1, "the label once");
        assert(a.lines.some((l) => l.command === "311"), "the WHOIS reply in the batch");
        assertEquals(a.lines.at(-1)?.command, "BATCH", "the batch ends");
      },
    );

    await t.step("one reply: the label on it", async () => {
      const a = await labeled(c, "p1", "PING :hello");
      assertEquals(a.lines.map((l) => l.command), ["PONG"]);
    });

    await t.step("an error from the server carries the label", async () => {
      const a = await labeled(c, "e1", "MODE #nosuchchannel");
      assert(["401", "403"].includes(a.lines[0].command), a.lines[0].raw);
      assertEquals(a.lines.length, 1);
    });

    await t.step("an error from Parley carries the label", async () => {
      const missing = await labeled(c, "e2", "KICK #lab");
      assertEquals(missing.lines.map((l) => l.command), ["461"]);
      const noText = await labeled(c, "e3", "PRIVMSG #lab :");
      assertEquals(noText.lines.map((l) => l.command), ["412"]);
      const fail = await labeled(c, "e4", "CHATHISTORY BOGUS #lab * 5");
      assertEquals(fail.lines.map((l) => l.command), ["FAIL"]);
      const bouncer = await labeled(c, "e6", "BOUNCER LISTNETWORKS");
      assertEquals(bouncer.lines.map((l) => l.command), ["FAIL"]);
      const mark = await labeled(c, "e5", "MARKREAD");
      assert(["461", "FAIL"].includes(mark.lines[0].command), mark.lines[0].raw);
    });

    await t.step(
      "a labeled CHATHISTORY is answered in its batch, the label on its start",
      async () => {
        const a = await labeled(c, "h1", "CHATHISTORY LATEST #lab * 10");
        assert(a.batch, a.lines.map((l) => l.raw).join("\n"));
        assertEquals(a.batch.params[1], "chathistory", "an existing type for the whole answer");
        assert(a.lines.some((l) => l.params[1] === "something to fetch"));
        const empty = await labeled(c, "h2", "CHATHISTORY LATEST #nothinghere * 10");
        assert(empty.batch, "an empty batch still carries the label");
      },
    );

    await t.step("a labeled MARKREAD query: the label on its answer", async () => {
      const a = await labeled(c, "m1", "MARKREAD #lab");
      assertEquals(a.lines.map((l) => l.command), ["MARKREAD"]);
    });

    await t.step("a command that normally produces no reply gets a labeled ACK", async () => {
      const msg = await labeled(c, "a1", "PRIVMSG #lab :no echo asked");
      assertEquals(msg.lines.map((l) => l.command), ["ACK"]);
      const pong = await labeled(c, "a2", "PONG :nothing");
      assertEquals(pong.lines.map((l) => l.command), ["ACK"]);
    });

    await t.step("the label reaches no other client", async () => {
      await sync(other);
      assertEquals(other.lines.filter((l) => l.tags.has("label")), []);
    });

    await t.step("a client without labeled-response never sees a label", async () => {
      const plain = await BouncerClient.attach(s.port, `${user}@plain`, PASSWORD, ["batch"]);
      const from = plain.lines.length;
      await plain.send("@label=x1 WHOIS bob");
      await plain.waitFor((l) => l.command === "318", from);
      await plain.send("@label=x2 PRIVMSG #lab :hi");
      await sync(plain);
      assertEquals(plain.lines.slice(from).filter((l) => l.tags.has("label")), []);
      assertEquals(got(plain, from, "ACK"), []);
      plain.close();
    });
  } finally {
    c.close();
    other.close();
    await bob.close();
    await s.close();
  }
});

Deno.test("spec labeled-response: with echo-message, the echo is the answer", async () => {
  const s = await setupBouncer();
  const user = `${EMAIL}/${s.cid}`;
  await s.app.deps.irc.send(1, s.cid, "", "/join #echo");
  const c = await BouncerClient.attach(s.port, `${user}@e`, PASSWORD, [...CAPS, "echo-message"]);
  const other = await BouncerClient.attach(s.port, `${user}@o`, PASSWORD, CAPS);
  try {
    await c.waitFor((l) => l.command === "366" && l.params[1] === "#echo");
    const a = await labeled(c, "m1", "PRIVMSG #echo :echoed");
    assertEquals(a.lines.map((l) => l.command), ["PRIVMSG"], "the echo, labeled, and no ACK");
    const seen = await other.waitFor((l) => l.command === "PRIVMSG" && l.params[1] === "echoed");
    assertEquals(seen.tags.get("label"), undefined, "another client's copy has no label");
    // To oneself: the label only on the echo, not on the copy received as the target.
    const from = c.lines.length;
    await c.send("@label=self1 PRIVMSG alice :to myself");
    await c.waitFor((l) => l.tags.get("label") === "self1", from);
    await other.waitFor((l) => l.command === "PRIVMSG" && l.params[1] === "to myself");
    await sync(c);
    const copies = c.lines.slice(from).filter((l) => l.params[1] === "to myself");
    assert(copies.length >= 1, "the echo");
    assertEquals(copies.filter((l) => l.tags.has("label")).length, 1, "one labeled: the echo");

    // Two clients send the same line at once: each echo carries its own sender's label.
    const twin = await BouncerClient.attach(s.port, `${user}@t`, PASSWORD, [
      ...CAPS,
      "echo-message",
    ]);
    try {
      await twin.waitFor((l) => l.command === "366" && l.params[1] === "#echo");
      const [cFrom, tFrom] = [c.lines.length, twin.lines.length];
      await Promise.all([
        c.send("@label=same-c PRIVMSG #echo :the same words"),
        twin.send("@label=same-t PRIVMSG #echo :the same words"),
      ]);
      const mine = (x: BouncerClient, from: number) =>
        x.waitFor((l) => l.command === "PRIVMSG" && l.tags.has("label"), from);
      assertEquals((await mine(c, cFrom)).tags.get("label"), "same-c");
      assertEquals((await mine(twin, tFrom)).tags.get("label"), "same-t");
      // And each sees the other's line, unlabeled.
      const both = (x: BouncerClient, from: number) =>
        x.lines.slice(from).filter((l) => l.params[1] === "the same words").length === 2;
      await sync(c);
      await sync(twin);
      assert(both(c, cFrom) && both(twin, tFrom), "two copies each");
    } finally {
      twin.close();
    }
  } finally {
    c.close();
    other.close();
    await s.close();
  }
});
