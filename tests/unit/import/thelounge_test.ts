/** A The Lounge network as a Parley connection URL, and its logged events (import/thelounge.ts). */
import { assertEquals } from "../../support/assert.ts";
import { loungeEvent, networkUrl } from "../../../import/thelounge.ts";

Deno.test("the lounge networks: scheme, port, password or SASL, identity, TLS checks", () => {
  assertEquals(networkUrl({ host: "irc.example.org", port: 6667 }), "irc://irc.example.org:6667");
  assertEquals(
    networkUrl({ host: "irc.example.org", port: 6697, tls: true, rejectUnauthorized: false }),
    "ircs://irc.example.org:6697?tls_verify=0",
  );
  // SASL PLAIN puts the account in the URL, and wins over a server password; a "%" in it stays
  // itself once the URL is read back.
  const sasl = networkUrl({
    host: "h",
    sasl: "plain",
    saslAccount: "me@x",
    saslPassword: "p:w/d%41",
    password: "server",
  });
  assertEquals(sasl, "irc://me%40x:p%3Aw%2Fd%2541@h?sasl=plain");
  assertEquals(decodeURIComponent(new URL(sasl).password), "p:w/d%41");
  assertEquals(networkUrl({ host: "h", sasl: "external" }), "irc://h?sasl=external");
  assertEquals(networkUrl({ host: "h", password: "server pw" }), "irc://:server%20pw@h");
  assertEquals(
    networkUrl({ host: "h", nick: "al", username: "al", realname: "Al Ice" }),
    "irc://h?nick=al&realname=Al+Ice",
    "a username equal to the nick is left out",
  );
  assertEquals(
    networkUrl({ host: "h", nick: "al", username: "alice" }),
    "irc://h?nick=al&username=alice",
  );
  // What a distrusted file may hold instead: no port, a port of another type, no host.
  assertEquals(networkUrl({ host: "h", port: "x" }), "irc://h");
  assertEquals(networkUrl({ host: "h", port: 6697.5 }), "irc://h");
  assertEquals(networkUrl({ host: "h", port: -1, tls: "yes" }), "irc://h");
  assertEquals(networkUrl({ host: 42 }), "irc://invalid");
  assertEquals(networkUrl({ host: "h", rejectUnauthorized: false }), "irc://h", "no TLS to check");
});

Deno.test("the lounge events: each type's shape as Parley keeps it; another shape is none", () => {
  const event = (type: string, msg: Record<string, unknown>) => {
    const l = loungeEvent(type, msg);
    return l && [l.type, l.from, l.text, JSON.parse(l.fields!)];
  };
  // As server/plugins/irc-events/*.ts of The Lounge 4.5 write them.
  const from = (nick: unknown) => ({ mode: "@", nick });
  assertEquals(
    event("join", { from: from("dave"), hostmask: "d@h", text: "", self: false }),
    ["join", "dave", "", {}],
  );
  assertEquals(event("part", { from: from("dave"), text: "bye (now)" }), [
    "part",
    "dave",
    "",
    { message: "bye (now)" },
  ]);
  assertEquals(event("part", { from: from("dave"), text: "" }), ["part", "dave", "", {}]);
  assertEquals(event("quit", { from: from("dave"), text: '"done"' }), [
    "quit",
    "dave",
    "",
    { message: '"done"' },
  ]);
  assertEquals(event("kick", { from: from("op"), target: from("dave"), text: "out" }), [
    "kick",
    "op",
    "",
    { nick: "dave", message: "out" },
  ]);
  assertEquals(event("nick", { from: from("dave"), new_nick: "dave_" }), [
    "nick_change",
    "dave",
    "",
    { new_nick: "dave_" },
  ]);
  assertEquals(event("topic", { from: from("dave"), text: "the 'topic'" }), [
    "topic",
    "dave",
    "",
    { topic: "the 'topic'" },
  ]);
  assertEquals(event("mode", { from: from("op"), text: "+m " }), ["mode", "op", "", {
    mode: "+m",
  }]);
  for (
    const [type, msg] of [
      ["join", {}],
      ["join", { from: "dave" }],
      ["join", { from: from(42) }],
      ["join", { from: from("two words") }],
      ["part", { from: from("dave"), text: { no: "text" } }],
      ["kick", { from: from("op"), text: "out" }],
      ["kick", { from: from("op"), target: null }],
      ["nick", { from: from("dave") }],
      ["topic", { text: "set on join, by no one" }],
      ["topic", { from: from("dave") }],
      ["mode", { from: from("op"), text: " " }],
      ["whois", { from: from("dave") }],
    ] as [string, Record<string, unknown>][]
  ) assertEquals(loungeEvent(type, msg), undefined, `${type} ${JSON.stringify(msg)}`);
});
