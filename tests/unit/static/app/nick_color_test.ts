/** Nick colours (static/app/nick_color.ts). */
import { assert, assertEquals } from "../../../support/assert.ts";
import { nickColor } from "../../../../static/app/nick_color.ts";

Deno.test("nick colour: stable, case-insensitive, differs between nicks", () => {
  assertEquals(nickColor("Alice"), nickColor("alice"));
  assertEquals(nickColor("bob"), nickColor("bob"));
  const hues = new Set(["alice", "bob", "carol", "dave", "eve", "mallory"].map(nickColor));
  assert(hues.size >= 5, "different nicks get different colours");
  assert(/^light-dark\(#[0-9a-f]{6}, #[0-9a-f]{6}\)$/.test(nickColor("x")), nickColor("x"));
});
