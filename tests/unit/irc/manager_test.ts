/** irc/manager.ts: the JOIN lines a connection sends for its channels. */
import { assert, assertEquals } from "../../support/assert.ts";
import { joinLines } from "../../../irc/manager.ts";

Deno.test("joinLines packs channels into few JOIN lines", () => {
  assertEquals(joinLines([]), []);
  assertEquals(joinLines(["#a", "#b"]), ["JOIN #a,#b"]);
  const many = Array.from({ length: 100 }, (_, i) => `#channel-${i}`);
  const lines = joinLines(many);
  assert(lines.length > 1 && lines.length < 10);
  for (const l of lines) assert(l.length <= 410);
  assertEquals(lines.flatMap((l) => l.slice(5).split(",")), many);
});
