/**
 * The web client's settings in both backends: "{}" before any, per user, kept as written, and
 * changes made at once each building on the other's result.
 */
import { assertEquals } from "../support/assert.ts";
import { forEachStore } from "../support/backends.ts";

forEachStore("store: web client settings", async (store) => {
  const ann = await store.users.create("ann@example.org", "hash", []);
  const ben = await store.users.create("ben@example.org", "hash", []);
  assertEquals(await store.users.clientSettings(ann.id), "{}");
  const json = JSON.stringify({ theme: "dark", nick_suffix: "— ", pinned: [] });
  assertEquals(await store.users.changeClientSettings(ann.id, () => json), json);
  assertEquals(JSON.parse(await store.users.clientSettings(ann.id)), JSON.parse(json));
  assertEquals(await store.users.clientSettings(ben.id), "{}", "another user's are their own");

  // Twenty devices saving at once: each change reads the one before it, none is lost.
  await Promise.all(
    Array.from({ length: 20 }, (_, i) =>
      store.users.changeClientSettings(ben.id, (stored) => {
        const s = JSON.parse(stored);
        return JSON.stringify({ ...s, [`key${i}`]: true, n: (s.n ?? 0) + 1 });
      })),
  );
  const ben2 = JSON.parse(await store.users.clientSettings(ben.id));
  assertEquals(ben2.n, 20);
  assertEquals(Object.keys(ben2).filter((k) => k.startsWith("key")).length, 20);
});
