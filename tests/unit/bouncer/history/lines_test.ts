/**
 * bouncer/history/lines.ts for messages (its events are event_lines_test's): how a stored
 * message is addressed (a channel, the user's nick, the other person), actions, notices and
 * errors, gaps said by Parley, the tags every line carries, and a batch around them.
 */
import { assert, assertEquals } from "../../../support/assert.ts";
import {
  historyLine,
  inBatch,
  ircTime,
  type LineTarget,
} from "../../../../bouncer/history/lines.ts";
import { batchId } from "../../../../bouncer/batch_id.ts";
import type { HistoryLine } from "../../../../store/history_types.ts";
import { ircLower } from "../../../../lib/casefold.ts";
import { msgidOf } from "../../../../lib/msgid.ts";

const TS = 1_767_225_600_123_456;
const TAGS = `@time=2026-01-01T00:00:00.123Z;msgid=${msgidOf(7, TS)}`;

const channel: LineTarget = {
  name: "#Chan",
  conversationId: "#chan",
  isChannel: true,
  nick: "jane",
  fold: ircLower,
};
const privateWith: LineTarget = {
  ...channel,
  name: "Bob",
  conversationId: "bob",
  isChannel: false,
};

const row = (type: HistoryLine["type"], from: string, text: string): HistoryLine => ({
  conversation: 7,
  ts: TS,
  type,
  from,
  text,
});

Deno.test("history lines: messages to a channel, to the user, and the user's own", () => {
  assertEquals(
    historyLine(row("private", "bob", "hi there"), channel),
    `${TAGS} :bob PRIVMSG #Chan :hi there`,
  );
  assertEquals(
    historyLine(row("private", "BOB", "hi there"), privateWith),
    `${TAGS} :BOB PRIVMSG jane :hi there`,
  );
  assertEquals(
    historyLine(row("private", "jane", "hello bob"), privateWith),
    `${TAGS} :jane PRIVMSG Bob :hello bob`,
  );
  // Said as bobby before a nick change the conversation followed: still to the user.
  assertEquals(
    historyLine(row("private", "bobby", "before my nick change"), privateWith),
    `${TAGS} :bobby PRIVMSG jane :before my nick change`,
  );
  assertEquals(
    historyLine(row("action", "bob", "waves"), channel),
    `${TAGS} :bob PRIVMSG #Chan :\x01ACTION waves\x01`,
  );
  assertEquals(
    historyLine(row("notice", "bob", "note this"), channel),
    `${TAGS} :bob NOTICE #Chan :note this`,
  );
  assertEquals(
    historyLine(row("error", "srv", "no such nick"), channel),
    `${TAGS} :srv NOTICE #Chan :no such nick`,
  );
});

Deno.test("history lines: nothing stored can break a line", () => {
  assertEquals(
    historyLine(row("private", "bob", "a\r\nQUIT :x\0y"), channel),
    `${TAGS} :bob PRIVMSG #Chan :a  QUIT :x y`,
  );
  assertEquals(
    historyLine(row("private", "b o:b", "x y"), channel),
    `${TAGS} :bob PRIVMSG #Chan :x y`,
  );
  assertEquals(historyLine(row("private", "", "x y"), channel), `${TAGS} :* PRIVMSG #Chan :x y`);
});

Deno.test("history lines: a gap is said by Parley, to the channel or the user", () => {
  assertEquals(
    historyLine(row("gap", "", "Parley was not connected"), channel),
    `${TAGS} :parley NOTICE #Chan :Parley was not connected`,
  );
  assertEquals(
    historyLine(row("gap", "", "Parley was not connected"), privateWith),
    `${TAGS} :parley NOTICE jane :Parley was not connected`,
  );
});

Deno.test("history lines: a batch goes first among the tags, and around the lines", () => {
  const id = batchId();
  assert(/^h[0-9a-z]+$/.test(id) && batchId() !== id, "unique, letters and digits");
  // One counter for every kind: a search's batch never repeats a history batch's number.
  assert(batchId("search") !== `search${id.slice(1)}`, "one counter");
  const line = historyLine(row("private", "bob", "hi there"), channel, id)!;
  assert(line.startsWith(`@batch=${id};time=`), line);
  assertEquals(inBatch(id, "chathistory", ["#Chan"], [line]), [
    `BATCH +${id} chathistory #Chan`,
    line,
    `BATCH -${id}`,
  ]);
  assertEquals(inBatch(undefined, "chathistory", ["#Chan"], ["x"]), ["x"]);
  assertEquals(ircTime(TS), "2026-01-01T00:00:00.123Z");
});

Deno.test("history lines: a reply names its line's own msgid, a reaction is its TAGMSG", () => {
  const replies = new Map([["srv-q", "7.abc"]]);
  const reply = { ...row("private", "bob", "yes, sure"), replyTo: "srv-q" };
  assertEquals(
    historyLine(reply, channel, undefined, replies),
    `${TAGS};+draft/reply=7.abc :bob PRIVMSG #Chan :yes, sure`,
  );
  // A line the store does not have: the server's id, escaped as a tag value.
  assertEquals(
    historyLine({ ...reply, replyTo: "a b;c" }, channel, undefined, replies),
    `${TAGS};+draft/reply=a\\sb\\:c :bob PRIVMSG #Chan :yes, sure`,
  );
  const react = { ...row("react", "bob", "👍"), replyTo: "srv-q" };
  assertEquals(
    historyLine(react, channel, undefined, replies),
    `${TAGS};+draft/react=👍;+draft/reply=7.abc :bob TAGMSG #Chan`,
  );
  assertEquals(
    historyLine(react, privateWith, undefined, replies),
    `${TAGS};+draft/react=👍;+draft/reply=7.abc :bob TAGMSG jane`,
  );
  // A reaction kept without the line it names has nothing to say.
  assertEquals(historyLine(row("react", "bob", "👍"), channel), undefined);
});

Deno.test("history lines: from the sender's whole source when it was kept", () => {
  const from = (fromHost: string) =>
    historyLine({ ...row("private", "bob", "hi there"), fromHost }, channel);
  assertEquals(from("~bob@host.example"), `${TAGS} :bob!~bob@host.example PRIVMSG #Chan :hi there`);
  assertEquals(from("bob@2001:db8::1"), `${TAGS} :bob!bob@2001:db8::1 PRIVMSG #Chan :hi there`);
  // Nothing kept can break the line or add a word to it.
  assertEquals(from("a b\r\n@c"), `${TAGS} :bob!ab@c PRIVMSG #Chan :hi there`);
  assertEquals(from(""), `${TAGS} :bob PRIVMSG #Chan :hi there`);
});
