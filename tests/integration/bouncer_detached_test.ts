/**
 * Detached channels through the listener, on a real ngircd: `PART #chan :detach` takes the channel
 * out of IRC clients' lists while Parley stays in it (a plain client on the network sees no PART),
 * its lines are stored and not relayed (BouncerServ notices as -relay-detached says), a JOIN or a
 * mention (-reattach-on highlight) reattaches it with the JOIN burst, and -detach-after detaches an
 * idle channel (on a clock moved by hand).
 */
import { assert, assertEquals } from "../support/assert.ts";
import { EMAIL, PASSWORD, setupBouncer } from "../support/bouncer.ts";
import { BouncerClient, type Received } from "../support/bouncer_client.ts";
import { ApiClient } from "../support/api.ts";
import { EventSocket } from "../support/events.ts";
import { RawIrcClient } from "../support/irc_client.ts";
import { ManualClock } from "../support/manual_clock.ts";
import { poll } from "../support/poll.ts";
import { DetachedChannels } from "../../bouncer/detached.ts";
import { Relay } from "../../bouncer/relay.ts";

const fromServ = (l: Received) => l.command === "NOTICE" && l.prefix.startsWith("BouncerServ!");

Deno.test("bouncer: detached channels stay joined, out of IRC clients' lists", async (t) => {
  const clock = new ManualClock();
  const realClock = DetachedChannels.clock;
  DetachedChannels.clock = clock;
  const s = await setupBouncer();
  const bob = await RawIrcClient.connect(s.ngircd.port, "bob");
  const store = s.app.deps.store;
  const conn = (await store.connections.get(1, s.cid))!;
  const conv = async () => (await store.conversations.get(conn.id, "#det"))!;
  /** What bob says after `say`, as a private line alice's client gets: every line before it came. */
  let n = 0;
  const sync = async (c: BouncerClient) => {
    const word = `sync${++n}`;
    await bob.say("alice", word);
    await c.waitFor((l) => l.command === "PRIVMSG" && l.params[1] === word);
  };
  const serv = async (c: BouncerClient, text: string, until: RegExp) => {
    const from = c.lines.length;
    await c.send(`PRIVMSG BouncerServ :${text}`);
    return (await c.waitFor((l) => fromServ(l) && until.test(l.params[1]), from)).params[1];
  };
  try {
    await s.app.deps.irc.send(1, s.cid, "", "/join #det");
    await poll("alice is in #det", async () => !!(await store.conversations.get(conn.id, "#det")));
    await bob.join("#det");
    await bob.waitForMember("#det", "alice");
    const c = await BouncerClient.attach(s.port, `${EMAIL}/${s.cid}@laptop`, PASSWORD);
    await c.waitFor((l) => l.command === "366" && l.params[1] === "#det");

    await t.step("PART :detach: a PART for the client, none on the network", async () => {
      const web = await s.app.listen();
      const api = new ApiClient(`http://127.0.0.1:${web.port}`);
      await api.login(EMAIL, PASSWORD);
      const socket = await EventSocket.open(api);
      const from = c.lines.length;
      await c.send("PART #det :detach");
      await c.waitFor((l) => l.command === "PART" && l.params[0] === "#det", from);
      // The web client is told too.
      await socket.waitFor((e) =>
        e.type === "conversation" && e.conversation_id === "#det" && e.detached === true
      );
      await socket.close();
      await poll("stored detached", async () => (await conv()).detach.detached);
      assert((await conv()).joined, "still joined");
      // A line of alice's in the channel reaches bob after anything the PART would have sent.
      await s.app.deps.irc.send(1, s.cid, "#det", "still here");
      await bob.waitFor((l) => l.command === "PRIVMSG" && l.params[1] === "still here");
      assert(!bob.lines.some((l) => l.command === "PART" && l.raw.includes("alice")), "no PART");
    });

    await t.step("a client attaching now gets no JOIN of it", async () => {
      const d = await BouncerClient.attach(s.port, `${EMAIL}/${s.cid}@phone`, PASSWORD);
      await d.waitFor((l) => l.command === "422" || l.command === "376");
      await sync(d);
      assert(!d.lines.some((l) => l.command === "JOIN"), d.lines.map((l) => l.raw).join("\n"));
      d.close();
    });

    await t.step(
      "its lines are stored, not relayed; a mention comes from BouncerServ",
      async () => {
        const from = c.lines.length;
        await bob.say("#det", "chatter");
        await bob.say("#det", "alice: a word");
        const notice = await c.waitFor(fromServ, from);
        assertEquals(notice.params[1], "#det: <bob> alice: a word");
        await sync(c);
        assert(!c.lines.slice(from).some((l) => l.command === "PRIVMSG" && l.params[0] === "#det"));
        await poll("stored", async () => {
          const r = await s.api.get(`/api/connection/${s.cid}/conversation/%23det/messages`);
          return r.body.messages.some((m: { message: string }) => m.message === "chatter");
        });
      },
    );

    await t.step("-relay-detached message: every line as a BouncerServ notice", async () => {
      await serv(c, "channel update #det -relay-detached message", /^#det is detached/);
      const from = c.lines.length;
      await bob.say("#det", "more chatter");
      const notice = await c.waitFor(fromServ, from);
      assertEquals(notice.params[1], "#det: <bob> more chatter");
      await serv(c, "channel update #det -relay-detached none", /relay-detached none/);
      await bob.say("#det", "unheard");
      await sync(c);
      assert(!c.lines.some((l) => l.params.at(-1)?.includes("unheard")));
    });

    await t.step("JOIN reattaches: the JOIN burst, nothing on the network", async () => {
      const from = c.lines.length;
      const bobFrom = bob.lines.length;
      await c.send("JOIN #det");
      await c.waitFor((l) => l.command === "JOIN" && l.params[0] === "#det", from);
      const names = await c.waitFor((l) => l.command === "353" && l.params[2] === "#det", from);
      assert(names.params[3].includes("bob"), names.raw);
      await c.waitFor((l) => l.command === "366" && l.params[1] === "#det", from);
      assertEquals((await conv()).detach.detached, false);
      await bob.say("#det", "seen again");
      await c.waitFor((l) => l.command === "PRIVMSG" && l.params[1] === "seen again", from);
      assert(!bob.lines.slice(bobFrom).some((l) => l.command === "JOIN"), "no JOIN upstream");
    });

    await t.step("-reattach-on highlight: a mention reattaches with the JOIN burst", async () => {
      let from = c.lines.length;
      await serv(c, "channel update #det -detached true -reattach-on highlight", /is detached/);
      await c.waitFor((l) => l.command === "PART" && l.params[0] === "#det", from);
      from = c.lines.length;
      await bob.say("#det", "no mention");
      await sync(c);
      assert(!c.lines.slice(from).some((l) => l.command === "JOIN"), "not for any line");
      await bob.say("#det", "alice: come back");
      await c.waitFor((l) => l.command === "JOIN" && l.params[0] === "#det", from);
      await c.waitFor((l) => l.command === "366" && l.params[1] === "#det", from);
      await poll("stored attached", async () => !(await conv()).detach.detached);
    });

    await t.step("-detach-after: idle that long, the channel detaches itself", async () => {
      await serv(c, "channel update #det -detach-after 1h", /detach-after 3600s/);
      const from = c.lines.length;
      clock.advance(40 * 60_000);
      await bob.say("#det", "keeps it awake");
      await c.waitFor((l) => l.params[1] === "keeps it awake", from);
      clock.advance(40 * 60_000);
      await sync(c);
      assert(!c.lines.slice(from).some((l) => l.command === "PART"), "a line reset the timer");
      clock.advance(30 * 60_000);
      await c.waitFor((l) => l.command === "PART" && l.params[0] === "#det", from);
      await poll("stored detached", async () => (await conv()).detach.detached);
      assertEquals((await conv()).detach.detachAfter, 3600);
    });

    await t.step("channel update: its errors say what to type", async () => {
      assertEquals(
        await serv(c, "channel update #nope -detached true", /No such channel/),
        "No such channel: #nope",
      );
      await serv(c, "channel update #det -detached maybe", /-detached takes true or false/);
      await serv(c, "channel update #det -reattach-on sometimes", /-reattach-on takes one of/);
      await serv(c, "channel update #det -detach-after soon", /-detach-after takes a duration/);
      await serv(c, "channel update #det", /Give at least one flag/);
      await serv(c, "channel status", /^#det: detached/);
    });
    await t.step("after a restart: read from the store, detach-after counting again", async () => {
      // A relay made anew is what a restarted daemon has: its hubs read the store.
      const fresh = new Relay(s.app.deps.bus, store);
      const hub = fresh.hub(1, s.cid);
      await hub.loaded;
      assert(hub.detached.isDetached("#DET"), "detached, as stored");
      await store.conversations.setDetach((await conv()).id, { detached: false, detachAfter: 60 });
      const again = new Relay(s.app.deps.bus, store).hub(1, s.cid);
      await again.loaded;
      assert(!again.detached.isDetached("#det"));
      clock.advance(61_000);
      await poll("detached once idle", async () => (await conv()).detach.detached);
      again.detached.dispose();
      hub.detached.dispose();
    });
    c.close();
  } finally {
    DetachedChannels.clock = realClock;
    await bob.close();
    await s.close();
  }
});
