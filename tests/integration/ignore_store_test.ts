/**
 * The ignore list in both backends: per user, in the order added, each mask once, bounded, gone
 * with its user, and every change moves the generation the lists' caches reload on.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { forEachStore } from "../support/backends.ts";
import { MAX_IGNORES } from "../../store/ignores.ts";

forEachStore("store: ignore lists", async (store) => {
  const ann = await store.users.create("ann@example.org", "hash", []);
  const ben = await store.users.create("ben@example.org", "hash", []);
  const g = store.ignores.generation;
  assertEquals(await store.ignores.add(ann.id, "troll!*@*"), "added");
  assertEquals(await store.ignores.add(ann.id, "*!*@spam.example"), "added");
  assertEquals(await store.ignores.add(ann.id, "troll!*@*"), "exists");
  assert(store.ignores.generation > g, "an add moves the generation");
  assertEquals(await store.ignores.list(ann.id), ["troll!*@*", "*!*@spam.example"]);
  assertEquals(await store.ignores.list(ben.id), [], "another user's list is their own");
  const before = store.ignores.generation;
  assertEquals(await store.ignores.remove(ben.id, "troll!*@*"), false);
  assertEquals(await store.ignores.remove(ann.id, "troll!*@*"), true);
  assert(store.ignores.generation > before, "a removal moves the generation");
  assertEquals(await store.ignores.list(ann.id), ["*!*@spam.example"]);
  for (let i = 0; i < MAX_IGNORES; i++) await store.ignores.add(ben.id, `n${i}!*@*`);
  assertEquals(await store.ignores.add(ben.id, "one-more!*@*"), "full");
  assertEquals((await store.ignores.list(ben.id)).length, MAX_IGNORES);
  await store.users.remove(ann.id);
  assertEquals(await store.ignores.list(ann.id), [], "gone with the user");
});
