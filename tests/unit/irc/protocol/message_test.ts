/**
 * The one reader and writer of IRC lines (irc/protocol/message.ts): tags unescaped and escaped,
 * sources in parts, bounded tags, and the writer's rules for every line Parley makes.
 */
import { assert, assertEquals, assertThrows } from "../../../support/assert.ts";
import {
  formatMessage,
  ircLine,
  LineError,
  MAX_TAG_BYTES,
  nickOf,
  parseMessage,
  quotedLine,
  readHead,
  tagString,
} from "../../../../irc/protocol/message.ts";

Deno.test("parseMessage: tags, source, command and parameters", () => {
  const m = parseMessage(
    "@time=2026-01-01T00:00:00.000Z;x=a\\sb\\:c\\\\d\\r\\n;flag;+draft/react=\\q :n!u@h privmsg #c :hi there\r",
  )!;
  assertEquals(m.tags.get("x"), "a b;c\\d\r\n");
  assertEquals(m.tags.get("flag"), "");
  assertEquals(m.tags.get("+draft/react"), "q", "an unknown escape is the character");
  assertEquals([m.prefix, m.command, m.params], ["n!u@h", "PRIVMSG", ["#c", "hi there"]]);
  assertEquals(parseMessage("PING :a b")!.params, ["a b"]);
  assertEquals(parseMessage(":s 005 me A=1 B :are supported")!.params, [
    "me",
    "A=1",
    "B",
    "are supported",
  ]);
  assertEquals(parseMessage("@a=b   :s   MODE  #c  +o   x ")!.params, ["#c", "+o", "x"]);
  assertEquals(parseMessage("TOPIC #c :")!.params, ["#c", ""]);
  assertEquals(parseMessage("@a=b\\")!, undefined, "tags without a command");
  for (const bad of ["", "@only-tags", ":prefix-only", ":p ", "@t=1 :p"]) {
    assertEquals(parseMessage(bad), undefined, JSON.stringify(bad));
  }
});

Deno.test("parseMessage: tags over MAX_TAG_BYTES are refused, bytes counted in UTF-8", () => {
  const fits = `@k=${"a".repeat(MAX_TAG_BYTES - 4)} PING x`;
  assert(parseMessage(fits), "exactly the limit");
  assertEquals(parseMessage(`@k=${"a".repeat(MAX_TAG_BYTES - 3)} PING x`), undefined);
  // 3,000 characters of 3 bytes each: under the limit in characters, over it in bytes.
  assertEquals(parseMessage(`@k=${"€".repeat(3000)} PING x`), undefined);
});

Deno.test("readHead finds the head without copying; parseMessage agrees with it", () => {
  const line = "@msgid=1 :bob!b@h PRIVMSG #c :hi";
  const h = readHead(line + "\r")!;
  assertEquals(h.line, line);
  assertEquals(line.slice(1, h.tagsEnd), "msgid=1");
  assertEquals(line.slice(h.source, h.sourceEnd), "bob!b@h");
  assertEquals(line.slice(h.command, h.commandEnd), "PRIVMSG");
  assertEquals(line.slice(h.params), "#c :hi");
  assertEquals(readHead("PING")!.params, 4);
  assertEquals(readHead("PING")!.source, -1);
});

Deno.test("sources: nickOf", () => {
  assertEquals(nickOf("bob!b@h"), "bob");
  assertEquals(nickOf("irc.example.net"), "irc.example.net");
});

Deno.test("formatMessage: escaped tags, a source, the writer's colon rules", () => {
  const tags = new Map([["time", "2026-01-01T00:00:00.000Z"], ["x", "a b;c\\d\r\n"], ["f", ""]]);
  const out = formatMessage({ tags, prefix: "n!u@h", command: "PRIVMSG", params: ["#c", "hi"] });
  assertEquals(out, "@time=2026-01-01T00:00:00.000Z;x=a\\sb\\:c\\\\d\\r\\n;f :n!u@h PRIVMSG #c hi");
  assertEquals(parseMessage(out)!.tags, tags, "what the writer escapes, the reader unescapes");
  assertEquals(formatMessage({ command: "PRIVMSG", params: ["#c", ":)"] }), "PRIVMSG #c ::)");
  assertEquals(formatMessage({ command: "TOPIC", params: ["#c", ""] }), "TOPIC #c :");
  assertEquals(
    formatMessage({ command: "001", params: ["me", "Welcome here"] }),
    "001 me :Welcome here",
  );
  assertEquals(tagString(new Map()), "");
  // A name that would end the tag or the line is left out, never written.
  const odd = new Map([["a b", "1"], ["+x\0", "2"], ["c;d", "3"], ["e=f", "4"], ["+ok", "5"]]);
  assertEquals(tagString(odd), "@+ok=5 ");
  assertEquals(tagString(new Map([["a\r\n", "1"]])), "");
});

Deno.test("formatMessage refuses what would break a line or split a parameter", () => {
  const refused = (m: Parameters<typeof formatMessage>[0]) =>
    assert(assertThrows(() => formatMessage(m)) instanceof LineError, JSON.stringify(m));
  refused({ command: "PRIVMSG", params: ["#c", "a\r\nQUIT"] });
  refused({ command: "PRIVMSG", params: ["#c", "a\0b"] });
  refused({ command: "KICK", params: ["#c", "two words", "reason"] });
  refused({ command: "KICK", params: ["#c", "", "reason"] });
  refused({ command: "PRIVMSG x", params: [] });
  refused({ prefix: "n u", command: "PING", params: ["x"] });
  refused({ prefix: "n\r\n", command: "PING", params: ["x"] });
  refused({ command: "X", params: Array(16).fill("p") });
});

// The one writer of outgoing IRC lines: parameters stay parameters, and nothing breaks a line.
/** Fails unless `fn` throws a LineError whose message contains `part`. */
function refuses(fn: () => unknown, part: string): void {
  const err = assertThrows(fn);
  assert(err instanceof LineError && err.message.includes(part), err.message);
}

Deno.test("ircLine puts a colon before the last parameter only when it needs one", () => {
  assertEquals(ircLine("JOIN", "#a"), "JOIN #a");
  assertEquals(ircLine("JOIN", "#a", "key"), "JOIN #a key");
  assertEquals(ircLine("PRIVMSG", "#a", "hello there"), "PRIVMSG #a :hello there");
  assertEquals(ircLine("PRIVMSG", "#a", ":)"), "PRIVMSG #a ::)");
  assertEquals(ircLine("TOPIC", "#a", ""), "TOPIC #a :");
  assertEquals(ircLine("AWAY"), "AWAY");
  assertEquals(ircLine("001", "bob", "Welcome"), "001 bob Welcome");
  assertEquals(
    ircLine("NOTICE", "bob", "\x01VERSION Parley\x01"),
    "NOTICE bob :\x01VERSION Parley\x01",
  );
});

Deno.test("ircLine refuses a middle parameter that is empty, has a space or starts with ':'", () => {
  for (const bad of ["", "a b", ":x"]) {
    refuses(() => ircLine("KICK", "#a", bad, "reason"), "one word");
  }
});

Deno.test("ircLine refuses CR, LF and NUL in any parameter, and commands that are not one", () => {
  for (const bad of ["a\rb", "a\nb", "a\0b", "\r\n"]) {
    refuses(() => ircLine("PRIVMSG", "#a", bad), "CR, LF or NUL");
    refuses(() => ircLine("PRIVMSG", bad, "x"), "CR, LF or NUL");
  }
  for (const bad of ["", "PRIV MSG", "PRIVMSG\r\nQUIT", "12", ":x"]) {
    refuses(() => ircLine(bad, "x"), "Not an IRC command");
  }
  refuses(() => ircLine("MODE", ...Array(16).fill("x")), "Too many");
});

Deno.test("quotedLine reads a typed line into parameters and writes it again", () => {
  assertEquals(quotedLine("PRIVMSG #a :hello there"), "PRIVMSG #a :hello there");
  assertEquals(quotedLine("  MODE   #a +o  bob "), "MODE #a +o bob");
  assertEquals(quotedLine("PING x"), "PING x");
  assertEquals(quotedLine("TOPIC #a :"), "TOPIC #a :");
  refuses(() => quotedLine("PRIVMSG #a :x\r\nQUIT"), "CR, LF or NUL");
  refuses(() => quotedLine(":prefix PRIVMSG #a x"), "Not an IRC command");
});

Deno.test("quotedLine keeps IRCv3 tags before the command, bounded", () => {
  assertEquals(quotedLine("@+typing=active TAGMSG #a"), "@+typing=active TAGMSG #a");
  assertEquals(quotedLine("@+a;+b=1  PRIVMSG #a :hi there"), "@+a;+b=1 PRIVMSG #a :hi there");
  refuses(() => quotedLine("@+typing=active"), "followed by a command");
  refuses(() => quotedLine(`@+x=${"a".repeat(5000)} TAGMSG #a`), "followed by a command");
  refuses(() => quotedLine("@+a BAD!COMMAND #a"), "Not an IRC command");
});
