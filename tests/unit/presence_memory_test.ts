/**
 * What a channel member costs: every connection keeps every member of its channels, so with
 * hundreds of connections in channels of hundreds the members were most of the daemon's heap.
 */
import v8 from "node:v8";
import vm from "node:vm";
import { assert, assertEquals } from "../support/assert.ts";
import { Presence } from "../../irc/chat/presence.ts";

Deno.test("presence: a member without prefix modes costs little more than its map entry", async () => {
  v8.setFlagsFromString("--expose-gc");
  const gc = vm.runInNewContext("gc") as () => void;
  gc();
  const before = Deno.memoryUsage().heapUsed;
  const kept: Presence[] = [];
  for (let c = 0; c < 100; c++) {
    const p = new Presence();
    for (let ch = 0; ch < 3; ch++) {
      const list = Array.from({ length: 300 }, (_, i) => `n${ch}x${i}`)
        .map((id) => ({ id, nick: id, modes: [] }));
      p.names(`#c${ch}`, list);
    }
    kept.push(p);
  }
  gc();
  const perMember = (Deno.memoryUsage().heapUsed - before) / (100 * 3 * 300);
  // An object and an array a member took ~120 bytes here; the nick alone ~50 (its key included).
  assert(perMember < 90, `${perMember.toFixed(0)} bytes a member`);
  // Still the same answers: nick as spelt, modes given and taken.
  const p = kept[0];
  p.join("#c0", "bob", "Bob");
  p.mode("#c0", "bob", "o", true, ["o", "v"]);
  p.mode("#c0", "bob", "v", true, ["o", "v"]);
  p.mode("#c0", "n0x1", "v", true, ["o", "v"]);
  p.mode("#c0", "n0x1", "v", false, ["o", "v"]);
  p.rename("bob", "rob", "Rob");
  const members = (await p.members("#c0"))!;
  assertEquals(members.find((m) => m.nick === "Rob"), { nick: "Rob", modes: ["o", "v"] });
  assertEquals(members.find((m) => m.nick === "n0x1"), { nick: "n0x1", modes: [] });
  assertEquals(members.length, 301);
});
