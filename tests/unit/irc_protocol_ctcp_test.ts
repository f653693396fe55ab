/** One CTCP helper (irc/protocol/ctcp.ts): wrapping, ACTION, and Parley's answers. */
import { assert, assertEquals } from "../support/assert.ts";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import {
  actionText,
  actionWrap,
  ctcpAnswer,
  ctcpWrap,
  isAction,
  isWholeCtcp,
} from "../../irc/protocol/ctcp.ts";

Deno.test("ctcp: wrap", () => {
  assertEquals(ctcpWrap("VERSION"), "\x01VERSION\x01");
  assertEquals(ctcpWrap("PING", "123"), "\x01PING 123\x01");
});

Deno.test("ctcp: ACTION", () => {
  assertEquals(actionWrap("waves"), "\x01ACTION waves\x01");
  assertEquals(actionText("\x01ACTION waves\x01"), "waves");
  assertEquals(actionText("\x01ACTION waves"), "waves", "unterminated");
  assertEquals(actionText("\x01ACTION\x01"), "");
  assertEquals(actionText("\x01ACTION \x01"), "");
  assertEquals(actionText("\x01ACTIONS x\x01"), undefined);
  assertEquals(actionText("\x01VERSION\x01"), undefined);
  assertEquals(actionText("ACTION waves"), undefined);
  assert(isAction("\x01ACTION waves\x01") && !isAction("waves"));
  assert(isWholeCtcp("\x01ACTION waves\x01") && isWholeCtcp("\x01\x01"));
  assert(!isWholeCtcp("\x01ACTION waves") && !isWholeCtcp("\x01") && !isWholeCtcp("a\x01"));
});

Deno.test("ctcp: the requests Parley answers", () => {
  assertEquals(ctcpAnswer("version", "", "Parley 1"), "VERSION Parley 1");
  assertEquals(ctcpAnswer("PING", "x".repeat(100), "v"), `PING ${"x".repeat(64)}`);
  assertEquals(ctcpAnswer("CLIENTINFO", "", "v"), "CLIENTINFO CLIENTINFO PING TIME VERSION");
  assertEquals(ctcpAnswer("FINGER", "", "v"), undefined);
});

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

/** The CTCP delimiter written in a string: `\x01` or `\u0001`. */
const DELIM = /\\x01|\\u0001|\\u\{1\}/;

async function* modules(dir: string): AsyncGenerator<string> {
  for await (const entry of Deno.readDir(dir)) {
    const path = join(dir, entry.name);
    if (entry.isDirectory) yield* modules(path);
    else if (entry.name.endsWith(".ts")) yield path;
  }
}

Deno.test("ctcp: irc/ and bouncer/ wrap and unwrap CTCP only through irc/protocol/ctcp.ts", async () => {
  const found: string[] = [];
  for (const dir of ["irc", "bouncer"]) {
    for await (const path of modules(join(ROOT, dir))) {
      const module = relative(ROOT, path);
      if (module === "irc/protocol/ctcp.ts") continue;
      const lines = (await Deno.readTextFile(path)).split("\n");
      const here = lines.flatMap((l, i) =>
        DELIM.test(l) && !/^\s*(?:\/\/|\*|\/\*)/.test(l) ? [`${module}:${i + 1}: ${l.trim()}`] : []
      );
      found.push(...here);
    }
  }
  assertEquals(found, []);
});
