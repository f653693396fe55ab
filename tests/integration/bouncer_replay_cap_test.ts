/**
 * A client without chathistory that missed more than the replay's cap in one channel: the
 * newest 500 come at once (the last lines of a burst, stamped ahead of the clock, included),
 * after a notice saying how many were skipped and where to read them.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { EMAIL, PASSWORD, setupBouncer } from "../support/bouncer.ts";
import { BouncerClient } from "../support/bouncer_client.ts";
import { RawIrcClient } from "../support/irc_client.ts";
import { poll } from "../support/poll.ts";

Deno.test("bouncer: a replay cut at its cap says so, and all of it arrives", async () => {
  const s = await setupBouncer();
  const bob = await RawIrcClient.connect(s.ngircd.port, "bob");
  let c: BouncerClient | undefined;
  try {
    await s.app.deps.irc.send(1, s.cid, "", "/join #big");
    await bob.join("#big");
    await bob.waitForMember("#big", "alice");
    const user = `${EMAIL}/${s.cid}@laptop`;
    const first = await BouncerClient.attach(s.port, user, PASSWORD);
    await first.waitFor((l) => l.command === "366" && l.params[1] === "#big");
    first.close();
    await poll("detached", () => !s.bouncer.relay.hasClients(1));

    // 600 lines in a burst: each is stored at a millisecond of its own, so the last ones are
    // stamped ahead of the clock when the client comes back.
    for (let i = 0; i < 600; i++) await bob.say("#big", `line ${i}`);
    await poll("all stored", async () => {
      const r = await s.api.get(`/api/connection/${s.cid}/conversation/%23big/messages`);
      return (r.body.messages as { message: string }[]).some((m) => m.message === "line 599");
    });
    // How far ahead the burst's tail is depends on the machine: one line 30 s ahead stands for it.
    const store = s.app.deps.store;
    const conn = (await store.connections.get(1, s.cid))!;
    const conv = await store.conversations.ensure(conn.id, "#big", "#big");
    await store.messages.append({
      conversation: conv.id,
      userId: 1,
      from: "bob",
      type: "private",
      text: "line 600",
      ts: Date.now() * 1000 + 30_000_000,
    });
    c = await BouncerClient.attach(s.port, user, PASSWORD);
    await c.waitFor((l) => l.command === "PRIVMSG" && l.params[1] === "line 600");
    const said = c.lines.filter((l) => l.command === "PRIVMSG" && l.params[0] === "#big");
    assertEquals(said.length, 500);
    assertEquals(said[0].params[1], "line 101");
    const notice = c.lines.find((l) => l.command === "NOTICE" && l.params[0] === "#big");
    assert(notice, "a notice says the replay was cut");
    assertEquals(notice.prefix, "parley");
    assert(notice.params[1].startsWith("101 earlier lines"), notice.params[1]);
    assert(/CHATHISTORY/.test(notice.params[1]) && /web client/.test(notice.params[1]));
    assert(c.lines.indexOf(notice) < c.lines.indexOf(said[0]), "the notice comes first");
  } finally {
    c?.close();
    await bob.close();
    await s.close();
  }
});
