/**
 * The message store's history capability, the same on every backend: ranges with exclusive
 * bounds, channel events only when asked for, targets by their newest line, read markers that
 * only move forward, and clients' places in history.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { type Backend, forEachBackend } from "../support/backends.ts";
import type { MessageHistory } from "../../store/history_types.ts";
import type { MessageType } from "../../protocol/events.ts";

const T0 = Date.UTC(2026, 0, 1) * 1000;
const SEC = 1_000_000;

function historyOf(b: Backend): MessageHistory {
  assert(b.messages.history, `${b.name} has the history capability`);
  return b.messages.history;
}

/** #test: ten messages a second apart (`m0`..`m9`), a join between m4 and m5; #other: two. */
async function fixture(b: Backend) {
  const userId = await b.user("h@example.com");
  const connection = await b.connection(userId, "irc-localhost");
  const test = await b.conversation(connection, "#test");
  const other = await b.conversation(connection, "#other");
  const server = await b.conversation(connection, "");
  const add = (conversation: number, text: string, ts: number, type: MessageType = "private") =>
    b.messages.append({
      conversation,
      userId,
      from: "alice",
      type,
      text,
      ts,
      unread: type === "private",
    });
  for (let i = 0; i < 10; i++) await add(test, `m${i}`, T0 + i * SEC);
  await add(test, "bob joined.", T0 + 4.5 * SEC, "join");
  await add(other, "o0", T0 + 2.5 * SEC);
  await add(other, "o1", T0 + 20 * SEC);
  await add(server, "welcome", T0 + 30 * SEC, "notice");
  return { userId, connection, test, other, server };
}

const texts = (lines: { text: string }[]) => lines.map((l) => l.text);

forEachBackend(
  "history: ranges are exclusive, oldest first, and events only when asked",
  async (b, t) => {
    const h = historyOf(b);
    const f = await fixture(b);
    await t.step("those nearest the upper bound, oldest first", async () => {
      const got = await h.lines(f.test, {
        after: 0,
        before: T0 + 9 * SEC,
        limit: 3,
        newest: true,
        events: false,
      });
      assertEquals(texts(got), ["m6", "m7", "m8"]);
      assert(got.every((l) => l.conversation === f.test && l.type === "private"));
      assertEquals(got[0].ts, T0 + 6 * SEC);
      assertEquals(got[0].from, "alice");
    });
    await t.step("the ones nearest the lower bound, both bounds left out", async () => {
      const got = await h.lines(f.test, {
        after: T0 + 2 * SEC,
        before: T0 + 5 * SEC,
        limit: 10,
        newest: false,
        events: false,
      });
      assertEquals(texts(got), ["m3", "m4"]);
    });
    await t.step("channel events come with events: true", async () => {
      const got = await h.lines(f.test, {
        after: T0 + 2 * SEC,
        before: T0 + 5 * SEC,
        limit: 10,
        newest: false,
        events: true,
      });
      assertEquals(texts(got), ["m3", "m4", "bob joined."]);
      assertEquals(got[2].type, "join");
    });
    await t.step("nothing in range is an empty list", async () => {
      const got = await h.lines(f.test, {
        after: T0 + 3 * SEC,
        before: T0 + 3 * SEC + 1,
        limit: 10,
        newest: true,
        events: true,
      });
      assertEquals(got, []);
    });
    await t.step("a gap comes without events too; TARGETS does not count it", async () => {
      await b.messages.append({
        conversation: f.other,
        userId: f.userId,
        from: "",
        type: "gap",
        text: "not connected",
        ts: T0 + 40 * SEC,
      });
      const got = await h.lines(f.other, {
        after: T0 + 10 * SEC,
        before: T0 + 50 * SEC,
        limit: 10,
        newest: true,
        events: false,
      });
      assertEquals(texts(got), ["o1", "not connected"]);
      assertEquals(got[1].type, "gap");
      const targets = await h.targets(f.connection, {
        after: T0 + 25 * SEC,
        before: T0 + 50 * SEC,
        limit: 10,
        newest: true,
        events: true,
      });
      assertEquals(targets.map((x) => x.name), []);
    });
  },
);

forEachBackend("history: targets by their newest line in a range", async (b) => {
  const h = historyOf(b);
  const f = await fixture(b);
  const all = await h.targets(f.connection, {
    after: 0,
    before: T0 + 100 * SEC,
    limit: 10,
    newest: true,
    events: false,
  });
  // The server's own conversation is no target.
  assertEquals(all.map((x) => [x.name, x.latest]), [["#test", T0 + 9 * SEC], [
    "#other",
    T0 + 20 * SEC,
  ]]);
  const early = await h.targets(f.connection, {
    after: 0,
    before: T0 + 5 * SEC,
    limit: 10,
    newest: false,
    events: false,
  });
  assertEquals(early.map((x) => [x.conversation, x.latest]), [
    [f.other, T0 + 2.5 * SEC],
    [f.test, T0 + 4 * SEC],
  ]);
  const withEvents = await h.targets(f.connection, {
    after: 0,
    before: T0 + 5 * SEC,
    limit: 1,
    newest: true,
    events: true,
  });
  assertEquals(withEvents.map((x) => [x.name, x.latest]), [["#test", T0 + 4.5 * SEC]]);
  const first = await h.targets(f.connection, {
    after: 0,
    before: T0 + 100 * SEC,
    limit: 1,
    newest: false,
    events: false,
  });
  assertEquals(first.map((x) => x.name), ["#test"]);
});

forEachBackend("history: a read marker only moves forward and lowers unread", async (b) => {
  const h = historyOf(b);
  const f = await fixture(b);
  assertEquals(await b.unread(f.test), 10);
  assertEquals(await h.markRead(f.test, T0 + 6 * SEC), { lastRead: T0 + 6 * SEC, unread: 3 });
  assertEquals(await b.unread(f.test), 3);
  // Back in time: the marker stays where it is.
  assertEquals(await h.markRead(f.test, T0 + 2 * SEC), { lastRead: T0 + 6 * SEC, unread: 3 });
  assertEquals(await b.unread(f.test), 3);
  assertEquals(await h.markRead(f.test, T0 + 50 * SEC), { lastRead: T0 + 50 * SEC, unread: 0 });
  assertEquals(await h.markRead(f.test + f.other + f.server + 1000, T0), undefined);
  // Unread never grows by a marker: #other's count is kept below what the marker would count.
  assertEquals(await h.markRead(f.other, T0 + SEC), { lastRead: T0 + SEC, unread: 2 });
});

forEachBackend("history: the user's own lines after a read marker are not unread", async (b) => {
  const h = historyOf(b);
  const f = await fixture(b);
  // The user (Jane, as the server spells her nick) answered after m7: not unread.
  await b.messages.append({
    conversation: f.test,
    userId: f.userId,
    from: "Jane",
    type: "private",
    text: "mine",
    ts: T0 + 7.5 * SEC,
  });
  assertEquals(await h.markRead(f.test, T0 + 7 * SEC, "jane"), {
    lastRead: T0 + 7 * SEC,
    unread: 2,
  });
  assertEquals(await b.unread(f.test), 2);
});

forEachBackend(
  "history: a client's place only moves forward, per connection and name",
  async (b) => {
    const h = historyOf(b);
    const f = await fixture(b);
    const second = await b.connection(f.userId, "irc-second");
    assertEquals(await h.position(f.connection, "phone"), undefined);
    await h.setPosition(f.connection, "phone", T0 + 5 * SEC);
    await h.setPosition(f.connection, "phone", T0 + 2 * SEC);
    await h.setPosition(f.connection, "laptop", T0 + 7 * SEC);
    assertEquals(await h.position(f.connection, "phone"), T0 + 5 * SEC);
    assertEquals(await h.position(f.connection, "laptop"), T0 + 7 * SEC);
    assertEquals(await h.position(second, "phone"), undefined);
    await h.setPosition(f.connection, "phone", T0 + 8 * SEC);
    assertEquals(await h.position(f.connection, "phone"), T0 + 8 * SEC);
  },
);

forEachBackend(
  "history: lines by the server's msgid and back, within a conversation and its connection; the sender's host",
  async (b, t) => {
    const h = historyOf(b);
    const f = await fixture(b);
    const add = (text: string, ts: number, more: Record<string, unknown>) =>
      b.messages.append({
        conversation: f.test,
        userId: f.userId,
        from: "bob",
        type: "private",
        text,
        ts,
        ...more,
      });
    await add("q", T0 + 40 * SEC + 250, { serverMsgid: "srv-q", senderHost: "~bob@2001:db8::1" });
    await add("a", T0 + 41 * SEC, { serverMsgid: "srv-a", replyTo: "srv-q" });
    // A reaction carrying an id of its own is no line a reply names.
    await add("👍", T0 + 39 * SEC, { type: "react", serverMsgid: "srv-a", replyTo: "srv-q" });

    await t.step("the lines carry their server's ids", async () => {
      const got = await h.lines(f.test, {
        after: T0 + 39 * SEC,
        before: T0 + 50 * SEC,
        limit: 5,
        newest: true,
        events: false,
      });
      assertEquals(got.map((l) => [l.text, l.serverMsgid, l.replyTo, l.fromHost]), [
        ["q", "srv-q", undefined, "~bob@2001:db8::1"],
        ["a", "srv-a", "srv-q", undefined],
      ]);
    });
    await t.step("a millisecond's line gives its server msgid", async () => {
      assertEquals(await h.serverMsgid(f.connection, f.test, (T0 + 40 * SEC) / 1000), "srv-q");
      assertEquals(await h.serverMsgid(f.connection, f.test, (T0 + 41 * SEC) / 1000), "srv-a");
      // The line next to it, one the server gave no id, another connection's: none.
      assertEquals(
        await h.serverMsgid(f.connection, f.test, (T0 + 40 * SEC) / 1000 + 1),
        undefined,
      );
      assertEquals(await h.serverMsgid(f.connection, f.test, (T0 + 5 * SEC) / 1000), undefined);
      const second = await b.connection(f.userId, "irc-second");
      assertEquals(await h.serverMsgid(second, f.test, (T0 + 40 * SEC) / 1000), undefined);
    });
    await t.step("server msgids give their messages' times", async () => {
      const got = await h.byServerMsgid(f.test, ["srv-q", "srv-a", "srv-none", "srv-q"]);
      assertEquals(
        [...got].sort(),
        // Stored at its whole millisecond.
        [["srv-a", T0 + 41 * SEC], ["srv-q", T0 + 40 * SEC]],
      );
      assertEquals((await h.byServerMsgid(f.other, ["srv-q"])).size, 0, "another conversation");
      assertEquals((await h.byServerMsgid(f.test, [])).size, 0);
    });
  },
);
