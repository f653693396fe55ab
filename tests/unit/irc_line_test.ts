/** The one writer of outgoing IRC lines: parameters stay parameters, and nothing breaks a line. */
import { assert, assertEquals, assertThrows } from "../support/assert.ts";

/** Fails unless `fn` throws a LineError whose message contains `part`. */
function refuses(fn: () => unknown, part: string): void {
  const err = assertThrows(fn);
  assert(err instanceof LineError && err.message.includes(part), err.message);
}
import { ircLine, LineError, quotedLine } from "../../irc/protocol/message.ts";

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
