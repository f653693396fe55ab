/** bouncer/service/args.ts: a BouncerServ line as words, and its `-flag value` options. */
import {
  assert,
  assertEquals,
  assertStringIncludes,
  assertThrows,
} from "../../../support/assert.ts";
import { boolFlag, parseArgs, UsageError, words } from "../../../../bouncer/service/args.ts";

/** Fails unless `fn` throws an error whose message holds `text`. */
function throwsWith(fn: () => unknown, text: string): void {
  assertStringIncludes(assertThrows(fn).message, text);
}

/** Fails unless `fn` throws a UsageError (answered with the command's usage) holding `text`. */
function misused(fn: () => unknown, text: string): void {
  const err = assertThrows(fn);
  assert(err instanceof UsageError, `${err.message}: not a UsageError`);
  assertStringIncludes(err.message, text);
}

Deno.test("args: words, with double quotes and backslash escapes", () => {
  assertEquals(words("  network   create -addr h  "), ["network", "create", "-addr", "h"]);
  assertEquals(words('-name "Second one" -realname "Jane \\"JD\\" D"'), [
    "-name",
    "Second one",
    "-realname",
    'Jane "JD" D',
  ]);
  assertEquals(words('a "" b'), ["a", "", "b"], "an empty quoted word is a word");
  assertEquals(words('pre"fix one"post'), ["prefix onepost"]);
  assertEquals(words("a\\ b c\\"), ["a b", "c\\"]);
  assertEquals(words(""), []);
  throwsWith(() => words('say "hello'), "A quote is not closed.");
});

Deno.test("args: flags by name, each once; booleans with or without a value", () => {
  const p = parseArgs(["#chan", "-network", "irc-x", "--admin", "x", "-enabled", "FALSE"], [
    "network",
  ], ["admin", "enabled"]);
  assertEquals([...p.flags], [["network", "irc-x"], ["admin", "true"], ["enabled", "false"]]);
  assertEquals(p.positional, ["#chan", "x"]);
  assertEquals(boolFlag(p, "admin"), true);
  assertEquals(boolFlag(p, "enabled"), false);
  assertEquals(boolFlag(p, "missing"), undefined);
  assertEquals(parseArgs(["-", "x"], []).positional, ["-", "x"], "a lone dash is a word");
  misused(() => parseArgs(["-colour", "red"], ["network"]), "Unknown flag -colour.");
  misused(() => parseArgs(["-network", "a", "-network", "b"], ["network"]), "given twice");
  misused(() => parseArgs(["-network"], ["network"]), "The flag -network needs a value.");
  const odd = parseArgs(["-detached", "maybe"], ["detached"]);
  misused(() => boolFlag(odd, "detached"), "The flag -detached takes true or false.");
});
