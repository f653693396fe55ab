/**
 * The connection store's lookups that let a new connection be checked and named without reading
 * all of the user's connections: a count, the target's index, the highest numbered id.
 */
import { assertEquals } from "../support/assert.ts";
import { forEachStore } from "../support/backends.ts";
import type { Store } from "../../store/mod.ts";

function add(store: Store, userId: number, connectionId: string, target?: string) {
  return store.connections.create({
    userId,
    connectionId,
    name: connectionId,
    url: "irc://irc.example.org",
    onConnectCommands: [],
    wantedState: "disconnected",
    target,
  });
}

forEachStore("connection store: counts, targets and numbered ids by index", async (store) => {
  const jane = (await store.users.create("jane@example.com", "x", [])).id;
  const joe = (await store.users.create("joe@example.com", "x", [])).id;
  assertEquals(await store.connections.count(jane), 0);
  assertEquals(await store.connections.highestNumber(jane, "irc-libera"), 0);

  await add(store, jane, "irc-libera", "irc.libera.chat:6697 jane");
  assertEquals(await store.connections.highestNumber(jane, "irc-libera"), 0, "the base alone");
  for (const id of ["irc-libera-2", "irc-libera-10", "irc-libera-9"]) await add(store, jane, id);
  // Neither numbered nor of this base: left out.
  for (
    const id of ["irc-libera-chat", "irc-liberal-40", "irc-libera-3x", "irc-libera-1234567890"]
  ) {
    await add(store, jane, id);
  }
  await add(store, joe, "irc-libera-50");
  assertEquals(await store.connections.highestNumber(jane, "irc-libera"), 10);
  assertEquals(await store.connections.highestNumber(joe, "irc-libera"), 50);
  assertEquals(await store.connections.count(jane), 8);
  assertEquals(await store.connections.count(joe), 1);

  const [found] = await store.connections.byTarget(jane, "irc.libera.chat:6697 jane");
  assertEquals(found.connectionId, "irc-libera");
  assertEquals(await store.connections.byTarget(joe, "irc.libera.chat:6697 jane"), []);
  assertEquals(await store.connections.byTarget(jane, "irc.libera.chat:6697 JANE"), []);

  // Rows stored without a target are listed until they get one.
  assertEquals((await store.connections.untargeted(jane)).length, 7);
  const nine = (await store.connections.get(jane, "irc-libera-9"))!;
  await store.connections.update(nine.id, { target: "irc.libera.chat:6697 jane" });
  assertEquals((await store.connections.untargeted(jane)).length, 6);
  const same = await store.connections.byTarget(jane, "irc.libera.chat:6697 jane");
  assertEquals(same.map((r) => r.connectionId).sort(), ["irc-libera", "irc-libera-9"]);
});
