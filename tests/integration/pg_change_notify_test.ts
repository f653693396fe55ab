/**
 * On PostgreSQL, a node reloads users and conversations when another says they changed: that
 * word must come only once the change is committed, or the node reloads the old rows and keeps
 * them (old highlight keywords, a removed conversation).
 */
import postgres from "postgres";
import { assertEquals } from "../support/assert.ts";
import { poll } from "../support/poll.ts";
import { endListening, startPostgres } from "../support/postgres.ts";
import { openPgStore } from "../../store/pg/mod.ts";
import { USERS_CHANGED } from "../../store/pg/tables.ts";
import { idleConnection } from "../support/backends.ts";

Deno.test("the users-changed notification comes after the change is committed", async () => {
  const pg = await startPostgres();
  const store = await openPgStore(pg.url);
  const other = postgres(pg.url, { max: 2, onnotice: () => {} });
  const blocker = postgres(pg.url, { max: 1, onnotice: () => {} });
  let release = () => {};
  try {
    const user = await store.users.create("kw@example.org", "x", []);
    // What another node would reload at each notification.
    const reloaded: string[] = [];
    const { unlisten } = await other.listen(USERS_CHANGED, async (payload) => {
      if (payload === "sentinel") return void reloaded.push("sentinel");
      const [row] = await other`SELECT highlight_keywords FROM users WHERE id = ${user.id}`;
      reloaded.push(row.highlight_keywords);
    });
    // Another transaction holds the row, so the update waits for it.
    const held = new Promise<void>((r) => release = r);
    let locked!: () => void;
    const isLocked = new Promise<void>((r) => locked = r);
    const holding = blocker.begin(async (tx) => {
      await tx`SELECT 1 FROM users WHERE id = ${user.id} FOR UPDATE`;
      locked();
      await held;
    });
    await isLocked;
    const update = store.users.update(user.id, { highlightKeywords: ["kettle"] });
    await poll(
      "the update waiting for the row",
      async () =>
        (await other`SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock'
        AND query ILIKE 'update%users%'`).length > 0,
    );
    // Notifications reach a listener in commit order: whatever was sent before this one has
    // arrived once this one has.
    await other.notify(USERS_CHANGED, "sentinel");
    await poll("the sentinel", () => reloaded.includes("sentinel"));
    assertEquals(reloaded, ["sentinel"], "nothing announced before the commit");
    release();
    await holding;
    await update;
    await poll("the change announced", () => reloaded.length === 2);
    assertEquals(reloaded, ["sentinel", JSON.stringify(["kettle"])]);
    await unlisten();
  } finally {
    release();
    await blocker.end();
    await other.end();
    await store.close();
    await pg.close();
  }
});

Deno.test("a conversation changed on one node reloads another's", async () => {
  const pg = await startPostgres();
  const one = await openPgStore(pg.url);
  const two = await openPgStore(pg.url);
  try {
    const user = await one.users.create("conv@example.org", "x", []);
    const connection = await idleConnection(one, user.id);
    const chan = await one.conversations.ensure(connection.id, "#parley", "#Parley");
    // Each change the other node caches: its generation moves, so its caches reload.
    const changes: [string, () => Promise<void>][] = [
      ["rename", () => one.conversations.rename(chan.id, "#kettle", "#Kettle")],
      ["notify level", () => one.conversations.setNotify(chan.id, "muted")],
      ["detachment", () => one.conversations.setDetach(chan.id, { detached: true })],
      ["removal", () => one.conversations.remove(chan.id)],
    ];
    for (const [what, change] of changes) {
      const seen = two.conversations.generation;
      await change();
      await poll(`the other node told of the ${what}`, () => two.conversations.generation > seen);
    }
    assertEquals(await two.conversations.get(connection.id, "#kettle"), undefined);
  } finally {
    await two.close();
    await one.close();
    await pg.close();
  }
});

Deno.test("a node's listening session lost and back: its caches reload (what was told meanwhile is missed)", async () => {
  const pg = await startPostgres();
  const store = await openPgStore(pg.url);
  const admin = postgres(pg.url, { max: 1, onnotice: () => {} });
  try {
    const seen = [store.users.generation, store.conversations.generation, store.ignores.generation];
    // The session that holds the LISTENs ends, as at a restart of PostgreSQL; whatever was told
    // until the client listens again reached nobody.
    const pid = await endListening(admin);
    await poll(
      "listening again",
      async () =>
        (await admin`SELECT 1 FROM pg_stat_activity WHERE query ILIKE 'listen%'
        AND pid <> ${pid}`).length > 0,
    );
    await poll(
      "every cache reloaded",
      () =>
        store.users.generation > seen[0] && store.conversations.generation > seen[1] &&
        store.ignores.generation > seen[2],
    );
  } finally {
    await admin.end();
    await store.close();
    await pg.close();
  }
});
