/**
 * What a channel member costs: every connection keeps every member of its channels, so with
 * hundreds of connections in channels of hundreds the members were most of the daemon's heap.
 * The connections to one network share one list a channel, and each adds a bit a member.
 */
import v8 from "node:v8";
import vm from "node:vm";
import { assert, assertEquals } from "../../../support/assert.ts";
import { Presence, sharedNetworks } from "../../../../irc/chat/presence.ts";

Deno.test("presence: connections to one network in the same channels share their member lists", async () => {
  v8.setFlagsFromString("--expose-gc");
  const gc = vm.runInNewContext("gc") as () => void;
  const networksBefore = sharedNetworks();
  gc();
  const before = Deno.memoryUsage().heapUsed;
  const kept: Presence[] = [];
  const lists = Array.from(
    { length: 3 },
    (_, ch) =>
      Array.from({ length: 300 }, (_, i) => `n${ch}x${i}`)
        .map((id) => ({ id, nick: id, modes: [] })),
  );
  for (let c = 0; c < 100; c++) {
    const p = new Presence(() => "irc.example.test:6667\nExample");
    for (let ch = 0; ch < 3; ch++) {
      p.joined(`#c${ch}`);
      // Each connection's NAMES is its own copy of the strings, as read from its own socket.
      p.names(`#c${ch}`, lists[ch].map((m) => ({ ...m, id: `${m.id} `.trim() })));
    }
    kept.push(p);
  }
  gc();
  const perMember = (Deno.memoryUsage().heapUsed - before) / (100 * 3 * 300);
  // A list each took ~50 bytes a member and connection (the nick and its map entry); shared, the
  // list is counted once and each connection adds a bit.
  assert(perMember < 10, `${perMember.toFixed(1)} bytes a member and connection`);
  assertEquals(sharedNetworks(), networksBefore + 1);
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
  assertEquals((await kept[1].members("#c0"))!.length, 300, "Rob was seen by the first only");
  for (const k of kept) k.release();
  assertEquals(sharedNetworks(), networksBefore, "the last one released lets go of the network");
});
