/** The web client's settings in both backends: "{}" before any, per user, kept as written. */
import { assertEquals } from "../support/assert.ts";
import { forEachStore } from "../support/backends.ts";

forEachStore("store: web client settings", async (store) => {
  const ann = await store.users.create("ann@example.org", "hash", []);
  const ben = await store.users.create("ben@example.org", "hash", []);
  assertEquals(await store.users.clientSettings(ann.id), "{}");
  const json = JSON.stringify({ theme: "dark", nick_suffix: "— ", pinned: [] });
  await store.users.setClientSettings(ann.id, json);
  assertEquals(JSON.parse(await store.users.clientSettings(ann.id)), JSON.parse(json));
  assertEquals(await store.users.clientSettings(ben.id), "{}", "another user's are their own");
});
