/** irc/chat/chat_line.ts: which lines the lean path takes, and what it reads from them. */
import { assertEquals } from "../support/assert.ts";
import { parseChatLine, parseJoinLine, parseLeanLine } from "../../irc/chat/chat_line.ts";
import { parseMessage, sourceParts } from "../../irc/protocol/message.ts";
import { actionText } from "../../irc/protocol/ctcp.ts";

Deno.test("chat lines: a person's PRIVMSG, NOTICE and ACTION are read", () => {
  assertEquals(parseChatLine(":bob!b@host PRIVMSG #chan :hello there \r"), {
    nick: "bob",
    user: "b",
    host: "host",
    kind: "privmsg",
    target: "#chan",
    text: "hello there ",
    time: undefined,
    msgid: undefined,
  });
  assertEquals(parseChatLine(":bob!b@host NOTICE alice :psst")?.kind, "notice");
  const action = parseChatLine(":bob!b@host PRIVMSG #chan :\x01ACTION waves\x01");
  assertEquals([action?.kind, action?.text], ["action", "waves"]);
  assertEquals(parseChatLine(":bob!b@host PRIVMSG #chan :")?.text, "");
});

Deno.test("chat lines: server-time is read as irc-framework reads it; a batch is not taken", () => {
  const iso = parseChatLine("@msgid=x;time=2026-01-02T03:04:05.678Z :bob!b@h PRIVMSG #c :hi");
  assertEquals(iso?.time, Date.UTC(2026, 0, 2, 3, 4, 5, 678));
  assertEquals(iso?.msgid, "x", "the server's msgid, kept with the message");
  // A reply (a client tag) and an escaped msgid are irc-framework's, which reads every tag.
  assertEquals(parseChatLine("@+draft/reply=x :bob!b@h PRIVMSG #c :hi"), undefined);
  assertEquals(parseChatLine("@msgid=a\\sb :bob!b@h PRIVMSG #c :hi"), undefined);
  assertEquals(parseChatLine("@time=1700000000 :bob!b@h PRIVMSG #c :hi")?.time, 1.7e12);
  assertEquals(parseChatLine("@time=soon :bob!b@h PRIVMSG #c :hi")?.time, undefined);
  assertEquals(parseChatLine("@batch=abc;time=1700000000 :bob!b@h PRIVMSG #c :hi"), undefined);
});

Deno.test("chat lines: everything else is left to irc-framework", () => {
  for (
    const line of [
      ":irc.example.net NOTICE * :*** Looking up your hostname", // a server
      ":bob PRIVMSG #c :no user and host", // a bare nick
      "PRIVMSG #c :no prefix",
      ":bob!b@h JOIN #c",
      ":bob!b@h privmsg #c :lower-case command",
      ":bob!b@h PRIVMSG #c word", // no trailing parameter
      ":bob!b@h PRIVMSG  #c :two spaces",
      ":bob!b@h PRIVMSG #c",
      ":bob!b@h PRIVMSG #c :\x01VERSION\x01", // CTCP request
      ":bob!b@h NOTICE alice :\x01VERSION Parley\x01", // CTCP reply
      ":bob!b@h PRIVMSG #c :\x01ACTION unterminated",
      ":irc.example.net 001 alice :Welcome",
      "@time=x",
      "",
    ]
  ) {
    assertEquals(parseChatLine(line), undefined, JSON.stringify(line));
  }
});

Deno.test("join lines: someone's JOIN is read, in each form servers send", () => {
  assertEquals(parseJoinLine(":bob!b@host JOIN #chan\r"), {
    nick: "bob",
    user: "b",
    host: "host",
    channel: "#chan",
    time: undefined,
  });
  assertEquals(parseJoinLine(":bob!b@host JOIN :#chan")?.channel, "#chan");
  // extended-join: the account and the real name follow.
  assertEquals(parseJoinLine(":bob!b@host JOIN #chan bobacct :Bob B")?.channel, "#chan");
  assertEquals(parseJoinLine("@time=1700000000 :bob!b@h JOIN #c")?.time, 1.7e12);
  for (
    const line of [
      ":irc.example.net JOIN #chan", // a server's prefix
      ":bob!b@h JOIN #a,#b", // a list
      ":bob!b@h JOIN", // nothing joined
      ":bob!b@h JOIN :",
      "@batch=x :bob!b@h JOIN #c",
      ":bob!b@h PART #chan",
    ]
  ) assertEquals(parseJoinLine(line), undefined, line);
});

Deno.test("lean lines: what the lean path reads is what the one parser reads", () => {
  const lines = [
    ":bob!b@host PRIVMSG #chan :hello there \r",
    "@msgid=x;time=2026-01-02T03:04:05.678Z :bob!~b@h.example NOTICE alice :psst",
    ":bob!b@host PRIVMSG #chan :\x01ACTION waves\x01",
    ":bob!b PRIVMSG #chan ::)",
    ":bob!b@host PRIVMSG #chan :",
    ":bob!b@host JOIN #chan",
    ":bob!b@host JOIN :#chan",
    ":bob!b@host JOIN #chan bobacct :Bob B",
  ];
  for (const line of lines) {
    const lean = parseLeanLine(line);
    const full = parseMessage(line);
    if (!lean || !full) throw new Error(`not read: ${JSON.stringify(line)}`);
    const { nick, user, host } = sourceParts(full.prefix);
    assertEquals([lean.nick, lean.user, lean.host], [nick, user, host], line);
    if (lean.kind === "join") assertEquals(lean.channel, full.params[0], line);
    else {
      const text = lean.kind === "action" ? actionText(full.params[1]) : full.params[1];
      assertEquals([lean.target, lean.text], [full.params[0], text], line);
    }
  }
});
