/** irc/manager.ts: the JOIN lines a connection sends for its channels. */
import { assert, assertEquals } from "../../support/assert.ts";
import { joinLines } from "../../../irc/manager.ts";

const named = (...names: string[]) => names.map((name) => ({ name, key: "" }));

Deno.test("joinLines packs channels into few JOIN lines", () => {
  assertEquals(joinLines([]), []);
  assertEquals(joinLines(named("#a", "#b")), ["JOIN #a,#b"]);
  const many = Array.from({ length: 100 }, (_, i) => `#channel-${i}`);
  const lines = joinLines(named(...many));
  assert(lines.length > 1 && lines.length < 10);
  for (const l of lines) assert(l.length <= 410);
  assertEquals(lines.flatMap((l) => l.slice(5).split(",")), many);
});

Deno.test("joinLines sends the keys, the keyed channels first in each line", () => {
  assertEquals(
    joinLines([
      { name: "#a", key: "" },
      { name: "#b", key: "keyB" },
      { name: "#c" },
      { name: "#d", key: "keyD" },
    ]),
    ["JOIN #b,#d,#a,#c keyB,keyD"],
  );
  // Not a key: with a space, a comma, a control character, too long, or hidden (`*`).
  for (const key of ["a b", "a,b", "a\u0007b", "k".repeat(101), "*"]) {
    assertEquals(joinLines([{ name: "#x", key }, { name: "#y", key: "ok" }]), ["JOIN #y,#x ok"]);
  }
  // Many keyed channels: every line within the bound, each key beside its channel.
  const many = Array.from({ length: 60 }, (_, i) => ({
    name: `#keyed-channel-${i}`,
    key: `key-${i}-${"x".repeat(20)}`,
  }));
  const open = Array.from({ length: 30 }, (_, i) => ({ name: `#open-${i}`, key: "" }));
  const lines = joinLines([...open, ...many]);
  assert(lines.length > 2);
  const pairs: [string, string | undefined][] = [];
  for (const l of lines) {
    assert(new TextEncoder().encode(l).length <= 5 + 400, l);
    const [, channels, keys = ""] = l.split(" ");
    const k = keys ? keys.split(",") : [];
    channels.split(",").forEach((c, i) => pairs.push([c, k[i]]));
  }
  assertEquals(pairs, [
    ...many.map((c): [string, string] => [c.name, c.key]),
    ...open.map((c): [string, undefined] => [c.name, undefined]),
  ]);
});
