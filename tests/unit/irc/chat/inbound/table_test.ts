/**
 * The inbound handler table (irc/chat/inbound/), keyed by IRC command: a server's line in, parsed
 * as the transport parses it, and out the stored row, the bus event, the members kept, or the
 * answer told to whoever waits; with a fake connection over a real store and bus. Also the
 * bounds of the gathered multi-line replies (replies.ts).
 */
import { EventEmitter } from "node:events";
import { assert, assertEquals } from "../../../../support/assert.ts";
import { openStore, type Store } from "../../../../../store/mod.ts";
import { aliceRecord, fakeConnection } from "../../../../support/fake_connection.ts";
import { EventBus } from "../../../../../lib/bus.ts";
import type { BusEvent } from "../../../../../protocol/events.ts";
import { attachInbound, serial } from "../../../../../irc/chat/inbound/mod.ts";
import {
  MAX_AGE_MS,
  MAX_CHARS,
  MAX_OPEN,
  MAX_OPEN_CHARS,
  Replies,
} from "../../../../../irc/chat/inbound/replies.ts";
import type { IrcConnection } from "../../../../../irc/engine/connection.ts";
import type { IrcClient } from "../../../../../irc/engine/client.ts";
import type { WhoisReply } from "../../../../../irc/engine/events.ts";
import { parseMessage } from "../../../../../irc/protocol/message.ts";
import type { ConnectionRecord } from "../../../../../store/connections.ts";

/** alice's fake connection with the handlers attached; `line` hands over one server line. */
function attached(store: Store, record: ConnectionRecord, bus: EventBus) {
  const client = new EventEmitter();
  const sent: string[] = [];
  const conn = {
    ...fakeConnection(record, client, ["PREFIX=(ov)@+", "CHANMODES=beI,k,l,imnpst"]),
    send: (line: string) => (sent.push(line), Promise.resolve()),
  };
  const run = serial("test");
  const lines = attachInbound(
    { store, bus },
    conn as unknown as IrcConnection,
    client as unknown as IrcClient,
    run,
  );
  // As the connection hands a line over: its state reads it first.
  const line = (text: string) => {
    const m = parseMessage(text)!;
    conn.upstream.see(m);
    return lines.take(m);
  };
  const settle = async () => {
    await new Promise((r) => setTimeout(r, 0));
    await new Promise<void>((r) => run(() => Promise.resolve(r())));
    await store.messages.flush();
  };
  return { client, conn, lines, line, settle, sent };
}

Deno.test("inbound table: each command's line updates state, keeps its row, tells the bus", async (t) => {
  const dir = await Deno.makeTempDir({ prefix: "parley-inbound-table-" });
  const store = await openStore(dir);
  try {
    const { user, record } = await aliceRecord(store);
    const bus = new EventBus();
    const seen: BusEvent[] = [];
    bus.subscribe(user.id, (ev) => seen.push(ev));
    const { client, lines, line, settle } = attached(store, record, bus);
    const states = (type: string) =>
      seen.filter((e) => e.event === "state" && e.type === type) as Record<string, unknown>[];
    const rows = async (name: string) => {
      const conv = await store.conversations.get(record.id, name);
      if (!conv) return [];
      return (await store.messages.historyOf(conv.id, { limit: 50 })).messages;
    };
    const members = async () =>
      // Each as its prefix modes' letters and its nick: `obob` is bob with +o.
      ((await lines.members("#room")) ?? []).map((m) => `${m.modes.join("")}${m.nick}`).sort();

    await t.step("JOIN of the user: the conversation is made joined, the join kept", async () => {
      line(":alice!a@h JOIN #Room");
      line(":irc.test 353 alice = #Room :alice @bob +carol");
      line(":irc.test 366 alice #Room :End of NAMES list");
      await settle();
      const conv = await store.conversations.get(record.id, "#room");
      assert(conv?.joined, "joined");
      assertEquals((await rows("#room")).map((m) => [m.type, m.fields]), [
        ["join", { nick: "alice" }],
      ]);
      assertEquals(states("join").map((e) => e.nick), ["alice"]);
      assertEquals(await members(), ["alice", "obob", "vcarol"]);
    });

    await t.step("MODE: the member's prefix follows, the change is kept and told", async () => {
      line(":bob!b@h MODE #Room +ov-v carol carol carol");
      line(":bob!b@h MODE #Room +l 10");
      await settle();
      assertEquals(await members(), ["alice", "obob", "ocarol"]);
      assertEquals((await rows("#room")).filter((m) => m.type === "mode").map((m) => m.fields), [
        { nick: "bob", mode: "+ov-v carol carol carol" },
        { nick: "bob", mode: "+l 10" },
      ]);
      assertEquals(states("mode").map((e) => [e.conversation_id, e.mode, e.nick]), [
        ["#room", "+ov-v carol carol carol", "bob"],
        ["#room", "+l 10", "bob"],
      ]);
    });

    await t.step("TOPIC: the conversation's topic, the row and the event", async () => {
      line(":bob!b@h TOPIC #Room :Fresh paint");
      await settle();
      assertEquals((await store.conversations.get(record.id, "#room"))?.topic, "Fresh paint");
      assertEquals((await rows("#room")).at(-1)?.fields, { nick: "bob", topic: "Fresh paint" });
      assertEquals(states("topic").map((e) => [e.topic, e.nick]), [["Fresh paint", "bob"]]);
    });

    await t.step("PART and KICK: members leave, rows kept, a kick told as a part", async () => {
      line(":dave!d@h JOIN #Room");
      line(":dave!d@h PART #Room :brb");
      line(":bob!b@h KICK #Room carol :behave");
      await settle();
      assertEquals(await members(), ["alice", "obob"]);
      const kept = (await rows("#room")).slice(-2).map((m) => [m.type, m.fields]);
      assertEquals(kept, [
        ["part", { nick: "dave", message: "brb" }],
        ["kick", { nick: "carol", kicker: "bob", message: "behave" }],
      ]);
      assertEquals(states("part").map((e) => [e.nick, e.kicker, e.message]), [
        ["dave", undefined, "brb"],
        ["carol", "bob", "behave"],
      ]);
    });

    await t.step("NICK and QUIT: kept in every channel the person was seen in", async () => {
      line(":bob!b@h NICK :robert");
      line(":robert!b@h QUIT :gone");
      await settle();
      assertEquals(await members(), ["alice"]);
      assertEquals((await rows("#room")).slice(-2).map((m) => [m.type, m.fields]), [
        ["nick_change", { old_nick: "bob", new_nick: "robert" }],
        ["quit", { nick: "robert", message: "gone" }],
      ]);
      assertEquals(states("nick_change").map((e) => [e.old_nick, e.new_nick]), [
        ["bob", "robert"],
      ]);
      assertEquals(states("quit").map((e) => [e.nick, e.message]), [["robert", "gone"]]);
    });

    await t.step("KICK of the user: the channel is left", async () => {
      line(":op!o@h KICK #Room alice :out");
      await settle();
      assertEquals((await store.conversations.get(record.id, "#room"))?.joined, false);
    });

    await t.step(
      "a numeric error: in the server conversation, on the bus, to waiters",
      async () => {
        const told: unknown[] = [];
        client.on("irc error", (ev) => told.push(ev));
        line(":irc.test 401 alice nobody :No such nick/channel");
        await settle();
        assertEquals(told, [{
          error: "no_such_nick",
          nick: "nobody",
          reason: "No such nick/channel",
        }]);
        assertEquals(
          (await rows("")).at(-1)?.message,
          "nobody: No such nick/channel",
        );
        const error = states("error").at(-1);
        assertEquals([error?.conversation_id, error?.error], ["nobody", "no_such_nick"]);
      },
    );

    await t.step("INVITE of the user: said in the server conversation and told", async () => {
      line(":bob!b@h INVITE alice #secret");
      // Another's, told to a channel operator by invite-notify: not the user's invitation.
      line(":bob!b@h INVITE carol #secret");
      line(":bob!b@h INVITE alice notachannel");
      await settle();
      assertEquals((await rows("")).at(-1)?.message, "bob invited you to #secret.");
      assertEquals(
        states("invite").map((e) => [e.conversation_id, e.name, e.nick]),
        [["#secret", "#secret", "bob"]],
      );
    });

    await t.step("WHOIS: its lines gathered to 318, told as one answer", async () => {
      const told: WhoisReply[] = [];
      client.on("whois", (ev) => told.push(ev));
      line(":irc.test 311 alice Erin ~e host.example * :Erin Example");
      line(":irc.test 319 alice Erin :@#a +#b");
      line(":irc.test 319 alice Erin :#c");
      line(":irc.test 301 alice Erin :at lunch");
      line(":irc.test 312 alice Erin irc.test :Test server");
      line(":irc.test 317 alice Erin 42 1700000000 :seconds idle, signon time");
      assertEquals(told, [], "nothing before the end");
      line(":irc.test 318 alice erin :End of WHOIS list");
      assertEquals(told, [{
        nick: "Erin",
        ident: "~e",
        hostname: "host.example",
        real_name: "Erin Example",
        channels: "@#a +#b #c",
        away: "at lunch",
        server: "irc.test",
        server_info: "Test server",
        idle: "42",
        logon: "1700000000",
      }]);
      // The away reply inside a WHOIS is the WHOIS's, not news that someone is away.
      await settle();
      assertEquals(states("away").length, 0);
      line(":irc.test 318 alice ghost :End of WHOIS list");
      assertEquals(told[1], { nick: "ghost", error: "not_found" });
    });

    await t.step("MOTD: its lines kept as one line of the server conversation", async () => {
      line(":irc.test 375 alice :- irc.test Message of the day -");
      line(":irc.test 372 alice :- Be nice.");
      line(":irc.test 372 alice :- Or else.");
      line(":irc.test 376 alice :End of MOTD command");
      await settle();
      assertEquals((await rows("")).at(-1)?.message, "- Be nice.\n- Or else.");
    });

    await t.step("lines missing their parameters change nothing and keep nothing", async () => {
      const before = (await rows("")).length;
      for (
        const text of [
          ":op!o@h KICK",
          ":op!o@h KICK #room",
          ":op!o@h PART",
          ":op!o@h JOIN",
          ":op!o@h TOPIC",
          ":op!o@h MODE",
          ":op!o@h NICK",
          ":irc.test 332 alice",
          ":irc.test 333 alice",
          ":irc.test 366 alice",
          ":irc.test 318 alice",
        ]
      ) line(text);
      await settle();
      assertEquals((await rows("")).length, before, "nothing in the server conversation");
      assertEquals((await store.conversations.get(record.id, ""))?.topic ?? "", "");
    });

    await t.step("LIST: told in chunks, then its end", () => {
      const chunks: number[] = [];
      let ended = false;
      client.on("channel list", (list: unknown[]) => chunks.push(list.length));
      client.on("channel list end", () => (ended = true));
      for (let i = 0; i < 120; i++) line(`:irc.test 322 alice #c${i} 3 :topic ${i}`);
      line(":irc.test 323 alice :End of LIST");
      assertEquals([chunks, ended], [[50, 50, 20], true]);
    });
  } finally {
    await store.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("inbound table: gathered replies are bounded in lines, in number and in age", () => {
  const m = (text: string) => parseMessage(text)!;
  let now = 0;
  const replies = new Replies(() => now);

  // Lines past the bound are dropped, and the reply says it was cut.
  for (let i = 0; i < 1_500; i++) replies.gather(m(`:s 367 me #chan mask${i}!*@* op 0`));
  const bans = replies.end(m(":s 368 me #chan :End"))!;
  assertEquals([bans.lines.length, bans.cut], [1_000, true]);
  assertEquals(replies.size, 0, "the end closes it");

  // A server that never ends its replies: at most MAX_OPEN are kept, the oldest give way.
  for (let i = 0; i < MAX_OPEN + 10; i++) replies.gather(m(`:s 353 me = #c${i} :a b`));
  assertEquals(replies.size, MAX_OPEN);
  assertEquals(replies.end(m(":s 366 me #c0 :End"))!.lines, [], "the oldest was dropped");
  assertEquals(replies.end(m(`:s 366 me #c${MAX_OPEN + 9} :End`))!.lines.length, 1);

  // One left open too long is dropped when the next one opens.
  now += MAX_AGE_MS + 1;
  replies.gather(m(":s 311 me erin ~e h * :Erin"));
  assertEquals(replies.size, 1, "the stale ones are gone");
  assertEquals(replies.end(m(":s 318 me Erin :End"))!.lines.length, 1, "keyed without case");

  // An away reply outside a WHOIS is not gathered: it is news of its own.
  assertEquals(replies.gather(m(":s 301 me bob :away")), false);
  assertEquals(replies.gather(m(":s 372 me :- hi")), true);
});

Deno.test("inbound table: gathered replies are bounded in characters, each and together", () => {
  const m = (text: string) => parseMessage(text)!;
  const replies = new Replies();
  const names = (channel: string) => m(`:s 353 me = ${channel} :${"n".repeat(7_900)}`);

  // One reply of long lines: cut at MAX_CHARS, far below its 2,000 lines.
  for (let i = 0; i < 2_000; i++) replies.gather(names("#big"));
  const big = replies.end(m(":s 366 me #big :End"))!;
  assert(big.cut, "cut");
  assert(big.lines.length * 7_900 <= MAX_CHARS, `${big.lines.length} lines kept`);
  assert(big.lines.length >= MAX_CHARS / 8_000 - 1, `${big.lines.length} lines kept`);

  // Open replies together: past MAX_OPEN_CHARS the oldest give way to the newest.
  const perReply = Math.floor(MAX_CHARS / 8_000) - 1; // lines that fit in one reply
  const replyCount = Math.ceil(MAX_OPEN_CHARS / MAX_CHARS) + 2;
  for (let r = 0; r < replyCount; r++) {
    for (let i = 0; i < perReply; i++) replies.gather(names(`#c${r}`));
  }
  assertEquals(replies.end(m(":s 366 me #c0 :End"))!.lines, [], "the oldest was dropped");
  const newest = replies.end(m(`:s 366 me #c${replyCount - 1} :End`))!;
  assertEquals([newest.lines.length, newest.cut], [perReply, false]);
});
