/**
 * The relay's hub takes each line of the server once the connection handled it, with what the
 * handling made of it: a stored line goes to every attached client at once with its row's msgid
 * and time, an ignored one to no one, and the server's order holds.
 */
import { assert, assertEquals } from "../../support/assert.ts";
import { type Downstream, Hub } from "../../../bouncer/relay.ts";
import { Caps } from "../../../bouncer/caps.ts";
import { parseMessage } from "../../../irc/protocol/message.ts";
import type { Produced } from "../../../irc/engine/outlet.ts";
import { msgidOf, parseMsgid } from "../../../lib/msgid.ts";

function client(caps: string[] = ["server-time", "message-tags"]) {
  const c = new Caps();
  c.restore(caps, 302);
  const lines: { line: string; msgid?: string }[] = [];
  const d: Downstream = {
    caps: c,
    write: (line, msgid) => void lines.push({ line, msgid }),
    quit: () => {},
  };
  return { d, lines };
}

function hubOf() {
  const hub = new Hub(1, "c1");
  const feed = (raw: string, produced?: Produced) =>
    hub.line({ message: parseMessage(raw)!, produced });
  feed(":irc.test 001 alice :Welcome");
  feed(":alice!a@h JOIN #chan");
  return { hub, feed };
}

Deno.test("relay: a stored chat line and a kept event go out at once with their rows' msgid and time", () => {
  const { hub, feed } = hubOf();
  const { d, lines } = client();
  hub.attach(d);
  const ts = Date.UTC(2026, 10, 29, 6, 0, 0, 123) * 1000 + 456;
  const said = { kind: "stored", msgid: msgidOf(7, ts), ts } as const;
  feed("@msgid=server1 :bob!b@h PRIVMSG #chan :hello", said);
  // Nothing waits: the line is out when the call returns.
  assertEquals(lines.length, 1);
  assertEquals(lines[0].msgid, said.msgid);
  const tags = parseMessage(lines[0].line)!.tags;
  assertEquals(tags.get("msgid"), said.msgid);
  // The row's millisecond, as CHATHISTORY gives it (lib/msgid.ts names it).
  assertEquals(tags.get("time"), new Date(parseMsgid(said.msgid)!.ms).toISOString());
  const kept = { kind: "stored", msgid: msgidOf(7, ts + 1000), ts: ts + 1000 } as const;
  feed(":carol!c@h JOIN #chan", kept);
  assertEquals(lines.length, 2);
  assertEquals(parseMessage(lines[1].line)!.tags.get("msgid"), kept.msgid);
  assertEquals(parseMessage(lines[1].line)!.tags.get("time"), "2026-11-29T06:00:00.124Z");
});

Deno.test("relay: an ignored person's line reaches no client; the lines after it do, in order", () => {
  const { hub, feed } = hubOf();
  const { d, lines } = client();
  hub.attach(d);
  feed(":mallory!m@h PRIVMSG #chan :ignore me", { kind: "ignored" });
  feed(":mallory!m@h PRIVMSG alice :me too", { kind: "ignored" });
  feed(":carol!c@h PART #chan :bye");
  assertEquals(lines.map((l) => parseMessage(l.line)!.command), ["PART"]);
});

Deno.test("relay: a stored line, then a numeric nothing stores: in the server's order", () => {
  const { hub, feed } = hubOf();
  const { d, lines } = client();
  hub.attach(d);
  const ts = Date.now() * 1000;
  feed(":bob!b@h PRIVMSG #chan :first", { kind: "stored", msgid: msgidOf(3, ts), ts });
  feed(":irc.test 482 alice #chan :You're not channel operator");
  feed(":bob!b@h PRIVMSG #chan :past the limit", { kind: "unstored" });
  feed(":bob!b@h NOTICE #chan :last", { kind: "stored", msgid: msgidOf(3, ts + 1000), ts });
  const got = lines.map((l) => parseMessage(l.line)!);
  assertEquals(got.map((m) => m.params.at(-1)), [
    "first",
    "You're not channel operator",
    "past the limit",
    "last",
  ]);
  // A line not stored goes out as the server sent it, with an id of its own for the stream.
  assert(got[2].tags.get("msgid") && !parseMsgid(got[2].tags.get("msgid")!));
});

Deno.test("relay: any event kept as one row carries its msgid; one kept in several does not", () => {
  const { hub, feed } = hubOf();
  const { d, lines } = client();
  hub.attach(d);
  const ts = Date.UTC(2026, 10, 29, 7, 0, 0, 5) * 1000;
  // A command the relay names nowhere: kept as one row, it is told with that row's id and time.
  const kept = { kind: "stored", msgid: msgidOf(9, ts), ts } as const;
  feed(":bob!b@h INVITE alice #other", kept);
  const invite = parseMessage(lines[0].line)!;
  assertEquals(invite.tags.get("msgid"), kept.msgid);
  assertEquals(invite.tags.get("time"), "2026-11-29T07:00:00.005Z");
  // A quit kept in several channels has no one row: it keeps an id of its own.
  feed(":bob!b@h QUIT :bye", { kind: "spread" });
  const quit = parseMessage(lines[1].line)!;
  assert(quit.tags.get("msgid") && quit.tags.get("msgid") !== kept.msgid, lines[1].line);
  assert(!parseMsgid(quit.tags.get("msgid")!), "not a row's msgid");
});

Deno.test("relay: a join's names reach clients after a hundred joins whose names never ended", () => {
  const { hub, feed } = hubOf();
  const { d, lines } = client();
  hub.attach(d);
  // A server that never ends its NAMES replies: each join is noted as waiting for them.
  for (let i = 0; i < 150; i++) feed(`:alice!a@h JOIN #open${i}`);
  feed(":alice!a@h JOIN #late");
  feed(":irc.test 353 alice = #late :alice bob");
  feed(":irc.test 366 alice #late :End of /NAMES list.");
  const names = lines.map((l) => parseMessage(l.line)!).filter((m) => m.params.includes("#late"));
  assertEquals(names.map((m) => m.command), ["JOIN", "353", "366"]);
});
