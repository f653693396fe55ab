/**
 * Sessions in both backends: a user keeps at most MAX_SESSIONS_PER_USER; a new one past that ends
 * the ones used longest ago, never another user's.
 */
import { assertEquals } from "../support/assert.ts";
import { forEachStore } from "../support/backends.ts";
import { MAX_SESSIONS_PER_USER } from "../../store/sessions.ts";

const tick = () => new Promise((r) => setTimeout(r, 2));

forEachStore("sessions: bounded per user, the longest unused end first", async (store) => {
  const ann = (await store.users.create("ann@example.org", "hash", [])).id;
  const ben = (await store.users.create("ben@example.org", "hash", [])).id;
  const later = Date.now() + 86_400_000;
  await store.sessions.create("ben-1", ben, later);
  for (let i = 0; i < MAX_SESSIONS_PER_USER; i++) {
    await store.sessions.create(`ann-${i}`, ann, later);
    await tick();
  }
  // The first is used again: the next to end are the 2nd to the 6th.
  await store.sessions.touch("ann-0", later);
  await tick();
  for (let i = 0; i < 5; i++) {
    await store.sessions.create(`ann-new-${i}`, ann, later);
    await tick();
  }
  const left = (await store.sessions.listForUser(ann, Date.now())).map((s) => s.idHash);
  assertEquals(left.length, MAX_SESSIONS_PER_USER);
  for (let i = 1; i <= 5; i++) assertEquals(await store.sessions.get(`ann-${i}`), undefined);
  for (const kept of ["ann-0", "ann-6", "ann-new-4"]) {
    assertEquals((await store.sessions.get(kept))?.userId, ann, kept);
  }
  assertEquals((await store.sessions.get("ben-1"))?.userId, ben, "another user's stays");
});
