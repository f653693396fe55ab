/**
 * Two connections to one network share their channels' member lists, and each still answers
 * with what its own server lines told it, whichever reads a line first.
 */
import { assertEquals } from "../../../support/assert.ts";
import { Presence } from "../../../../irc/chat/presence.ts";

let n = 0;
/** Two connections to a network of their own (tests in one process must not meet). */
function pair(onAway?: (who: string, ...a: unknown[]) => void) {
  const key = `shared-${++n}.example.test:6667\nExample`;
  const a = new Presence(() => key, (...args) => onAway?.("a", ...args));
  const b = new Presence(() => key, (...args) => onAway?.("b", ...args));
  for (const p of [a, b]) {
    p.joined("#c");
    p.names("#c", [{ id: "bob", nick: "Bob", modes: [] }, { id: "eve", nick: "eve", modes: [] }]);
  }
  return { a, b };
}
const nicks = async (p: Presence, ch = "#c") => (await p.members(ch))?.map((m) => m.nick).sort();

Deno.test("shared presence: a quit is kept by each connection, whichever read it first", () => {
  const { a, b } = pair();
  assertEquals(a.quit("bob"), ["#c"]);
  assertEquals(b.quit("bob"), ["#c"], "b saw bob in #c too");
  assertEquals(a.quit("bob"), [], "not twice");
  const r = pair();
  assertEquals(r.a.rename("eve", "eva", "Eva"), ["#c"]);
  assertEquals(r.b.rename("eve", "eva", "Eva"), ["#c"]);
});

Deno.test("shared presence: each connection lists only whom it saw", async () => {
  const { a, b } = pair();
  // Shown to a alone (an auditorium channel shows joins to its operators only).
  a.join("#c", "op", "Op");
  assertEquals(await nicks(a), ["Bob", "Op", "eve"]);
  assertEquals(await nicks(b), ["Bob", "eve"]);
  // a reads bob's part and rejoin before b reads the part: b's late part leaves a's bob alone.
  a.part("#c", "bob", false);
  a.join("#c", "bob", "Bob");
  b.part("#c", "bob", false);
  assertEquals(await nicks(a), ["Bob", "Op", "eve"]);
  assertEquals(await nicks(b), ["eve"]);
  b.join("#c", "bob", "Bob");
  assertEquals(await nicks(b), ["Bob", "eve"]);
  // Modes are the network's: given once, seen by both.
  a.mode("#c", "bob", "o", true, ["o", "v"]);
  assertEquals((await b.members("#c"))?.find((m) => m.nick === "Bob")?.modes, ["o"]);
  // One leaving keeps the other's list whole; a fresh NAMES replaces only its own view.
  a.part("#c", "a-self", true);
  assertEquals(await nicks(a), undefined, "not in the channel any more");
  assertEquals(await nicks(b), ["Bob", "eve"]);
  b.release();
  a.release();
});

Deno.test("shared presence: one WHO a channel for the network, and who is away told to all", async () => {
  const told: unknown[][] = [];
  const key = `who-${++n}.example.test:6667\nExample`;
  const a = new Presence(() => key, (...args) => told.push(["a", ...args]));
  const b = new Presence(() => key, (...args) => told.push(["b", ...args]));
  const list = [{ id: "bob", nick: "Bob", modes: [] }];
  a.joined("#c");
  assertEquals(a.names("#c", list), true, "the first to join asks WHO");
  b.joined("#c");
  assertEquals(b.names("#c", list), false, "the second does not");
  assertEquals(a.setAway("bob", true, "lunch"), true);
  assertEquals(told, [["b", "Bob", true, "lunch"]], "b is told, a publishes its own");
  assertEquals(b.setAway("bob", true), false, "b reading the same AWAY line changes nothing");
  assertEquals((await b.members("#c"))?.[0], { nick: "Bob", modes: [], away: true });
  a.release();
  b.release();
  // Everyone left: the next join asks again.
  const c = new Presence(() => key);
  c.joined("#c");
  assertEquals(c.names("#c", list), true);
  c.release();
});

Deno.test("shared presence: a released connection frees its slot, late events take none", async () => {
  const { a, b } = pair();
  a.release();
  a.join("#c", "late", "Late");
  assertEquals(await nicks(b), ["Bob", "eve"]);
  assertEquals(await a.members("#c"), undefined);
  const c = new Presence(() => `shared-${n}.example.test:6667\nExample`);
  c.joined("#c");
  c.names("#c", [{ id: "zed", nick: "zed", modes: [] }]);
  assertEquals(await nicks(c), ["zed"], "a's old slot reused without its bits");
  assertEquals(await nicks(b), ["Bob", "eve"]);
  b.release();
  c.release();
});

Deno.test("shared presence: whom a connection sees in its channels, its own view only", () => {
  const { a, b } = pair();
  a.join("#c", "op", "Op");
  assertEquals([a.sees("bob"), a.sees("op"), a.sees("zed")], [true, true, false]);
  assertEquals(b.sees("op"), false, "b was not shown op's join");
  a.part("#c", "alice", true);
  assertEquals(a.sees("bob"), false, "a left the channel");
  assertEquals(b.sees("bob"), true);
});
