/**
 * The cap on push subscriptions per user holds under concurrency: 40 subscribes at once store at
 * most the cap, on SQLite and on a real PostgreSQL, in the store and through the API.
 */
import { assertEquals } from "../support/assert.ts";
import { startApp } from "../support/app.ts";
import { forEachStore } from "../support/backends.ts";
import type { Store } from "../../store/mod.ts";
import { PUSH_LIMITS } from "../../push/notify.ts";
import { pushFor } from "../../push/mod.ts";

const KEYS = { p256dh: "B".repeat(87), auth: "A".repeat(22) };
const AT_ONCE = 40;

/** Subscribes AT_ONCE endpoints of one user at once: the store takes and keeps the cap. */
async function burst(store: Store): Promise<void> {
  const user = await store.users.create("cap@example.com", "x", []);
  await store.sessions.create("cap-session", user.id, Date.now() + 60_000);
  const results = await Promise.all(
    Array.from({ length: AT_ONCE }, (_, i) =>
      store.push.saveWithin({
        endpoint: `https://push.example/${i}`,
        userId: user.id,
        sessionHash: "cap-session",
        ...KEYS,
      }, PUSH_LIMITS.subscriptions)),
  );
  const counts = {
    taken: results.filter(Boolean).length,
    stored: await store.push.countForUser(user.id),
  };
  assertEquals(counts, { taken: PUSH_LIMITS.subscriptions, stored: PUSH_LIMITS.subscriptions });
  // Re-saving a stored endpoint at the cap replaces it: it is not one more.
  const again = (await store.push.forUser(user.id))[0];
  assertEquals(await store.push.saveWithin(again, PUSH_LIMITS.subscriptions), true);
  assertEquals(await store.push.countForUser(user.id), PUSH_LIMITS.subscriptions);
}

forEachStore(
  "push cap: the store keeps at most the cap from concurrent subscribes",
  (store) => burst(store),
);

/** Browsers and IRC clients (soju.im/webpush) share the cap: half of each at once. */
forEachStore("push cap: browsers' and IRC clients' subscriptions share the cap", async (store) => {
  const user = await store.users.create("mixed@example.com", "x", []);
  await store.sessions.create("mixed-session", user.id, Date.now() + 60_000);
  const results = await Promise.all(
    Array.from({ length: AT_ONCE }, (_, i) =>
      i % 2
        ? store.push.saveWithin({
          endpoint: `https://push.example/web/${i}`,
          userId: user.id,
          sessionHash: "mixed-session",
          ...KEYS,
        }, PUSH_LIMITS.subscriptions)
        : store.push.saveIrcWithin({
          endpoint: `https://push.example/irc/${i}`,
          userId: user.id,
          connection: null,
          client: "phone",
          credential: "null",
          ...KEYS,
        }, PUSH_LIMITS.subscriptions)),
  );
  const irc = await store.push.ircForUser(user.id);
  const stored = irc.length + await store.push.countForUser(user.id);
  assertEquals({ taken: results.filter(Boolean).length, stored }, {
    taken: PUSH_LIMITS.subscriptions,
    stored: PUSH_LIMITS.subscriptions,
  });
  if (irc.length) {
    assertEquals(await store.push.saveIrcWithin(irc[0], PUSH_LIMITS.subscriptions), true);
    assertEquals(await store.push.removeIrc(irc[0].endpoint, user.id + 1), false);
    assertEquals(await store.push.removeIrc(irc[0].endpoint, user.id), true);
  }
});

Deno.test("push cap: concurrent subscribes through the API get 201 up to the cap, then 400", async () => {
  const t0 = await startApp();
  try {
    const cookie = await t0.register("many@example.com");
    const answers = await Promise.all(
      Array.from({ length: AT_ONCE }, (_, i) =>
        t0.request("/api/push/subscriptions", {
          method: "POST",
          // A literal public address: checked without DNS, never delivered to here.
          body: JSON.stringify({ endpoint: `https://8.8.8.8/push/${i}`, keys: KEYS }),
          headers: { cookie, "content-type": "application/json" },
        })),
    );
    const statuses = answers.map((a) => a.status);
    assertEquals(statuses.filter((s) => s === 201).length, PUSH_LIMITS.subscriptions);
    assertEquals(statuses.filter((s) => s === 400).length, AT_ONCE - PUSH_LIMITS.subscriptions);
    const refused = answers.find((a) => a.status === 400)!.body as {
      errors: { path: string }[];
    };
    assertEquals(refused.errors[0].path, "/body/endpoint");
    const uid = (await t0.deps.store.users.byEmail("many@example.com"))!.id;
    assertEquals(await t0.deps.store.push.countForUser(uid), PUSH_LIMITS.subscriptions);
  } finally {
    pushFor(t0.deps).away.stop();
    await t0.close();
  }
});
