/**
 * Which node runs which user, on a real PostgreSQL that other databases and roles share: sessions
 * elsewhere on the server that look like nodes (same name, same advisory locks) do not count, and
 * a node that runs nobody yet is counted alive from its start; a suspended user is run by nobody.
 */
import postgres from "postgres";
import { assertEquals } from "../support/assert.ts";
import { startPostgres } from "../support/postgres.ts";
import { openPgStore, type PgStore } from "../../store/pg/mod.ts";
import { nodeScope, Ownership } from "../../cluster/ownership.ts";

const USERS = 3;
const SECRET = "the secret this installation's nodes share";

/** USERS users, each with a connection that wants to be connected (so a scan runs them). */
async function seedUsers(store: PgStore) {
  for (let i = 1; i <= USERS; i++) {
    const user = await store.users.create(`user${i}@example.org`, "x", []);
    await store.connections.create({
      userId: user.id,
      connectionId: "irc-localhost",
      name: "localhost",
      url: "irc://127.0.0.1:1",
      onConnectCommands: [],
      wantedState: "connected",
    });
  }
}

/**
 * A node's ownership with hooks that record what it was told; `starting` runs as each user is
 * started.
 */
function node(
  url: string,
  store: { sql: postgres.Sql },
  id: string,
  starting: () => Promise<void> = () => Promise.resolve(),
) {
  const acquired: number[] = [];
  let nodes: string[] = [];
  const ownership = new Ownership(
    url,
    store.sql as never,
    id,
    {
      acquired: async (uid) => {
        await starting();
        acquired.push(uid);
      },
      lost: () => Promise.resolve(),
      scanned: (alive) => Promise.resolve(void (nodes = alive)),
    },
    60_000,
    SECRET,
  );
  return { ownership, acquired, alive: () => nodes };
}

Deno.test("cluster ownership: only this database's nodes count, and each from its start", async (t) => {
  const pg = await startPostgres();
  const url = await pg.database();
  const elsewhere = await pg.database();
  const store = await openPgStore(url);
  const lookalikes: postgres.Sql[] = [];
  const nodes: Ownership[] = [];
  let a!: ReturnType<typeof node>;
  try {
    await seedUsers(store);
    const scope = await nodeScope(SECRET);

    await t.step(
      "sessions named and locked like nodes elsewhere on the server are ignored",
      async () => {
        // In another database of the same server (another installation, or anyone who can connect
        // there): named like a node, holding every user's lock.
        const ghost = postgres(elsewhere, {
          max: 1,
          onnotice: () => {},
          connection: { application_name: `${scope.prefix}ghost` },
        });
        lookalikes.push(ghost);
        for (let uid = 1; uid <= USERS; uid++) {
          await ghost`SELECT pg_advisory_lock(${scope.lockClass}::int, ${uid}::int)`;
        }
        // In Parley's own database under a role that is not Parley's: named like a node. (Holding
        // a user's lock there would keep the user from running: what REVOKE CONNECT prevents.)
        await store.sql`CREATE ROLE stranger LOGIN`;
        const stranger = postgres(url.replace("//parley@", "//stranger@"), {
          max: 1,
          onnotice: () => {},
          connection: { application_name: `${scope.prefix}stranger` },
        });
        lookalikes.push(stranger);
        await stranger`SELECT 1`;
        a = node(url, store, "nodea");
        nodes.push(a.ownership);
        await a.ownership.start();
        assertEquals(a.alive(), ["nodea"]);
        assertEquals(a.acquired.sort(), [1, 2, 3]);
        for (let uid = 1; uid <= USERS; uid++) {
          assertEquals(await a.ownership.ownerOf(uid), "nodea");
        }
      },
    );

    await t.step("a node that runs nobody is alive to the others from its start", async () => {
      const b = node(url, store, "nodeb");
      nodes.push(b.ownership);
      await b.ownership.start();
      assertEquals(b.acquired, [], "every user is taken");
      assertEquals(b.alive().sort(), ["nodea", "nodeb"]);
      // Node a's next look counts node b, so it keeps node b's browser sockets.
      await a.ownership.scan();
      assertEquals(a.alive().sort(), ["nodea", "nodeb"]);
      assertEquals(a.acquired.length, USERS, "nothing moved");
    });
  } finally {
    for (const n of nodes) await n.stop();
    for (const s of lookalikes) await s.end();
    await store.close();
    await pg.close();
  }
});

/**
 * Runs `fn` on a fresh database with USERS seeded; the nodes it puts in `nodes` are stopped after,
 * then the database.
 */
async function seeded(
  fn: (url: string, store: PgStore, nodes: ReturnType<typeof node>[]) => Promise<void>,
): Promise<void> {
  const pg = await startPostgres();
  const url = await pg.database();
  const store = await openPgStore(url);
  const nodes: ReturnType<typeof node>[] = [];
  try {
    await seedUsers(store);
    await fn(url, store, nodes);
  } finally {
    for (const n of nodes) await n.ownership.stop();
    await store.close();
    await pg.close();
  }
}

Deno.test("cluster ownership: a scan takes every free user's lock before it starts the first", async () => {
  await seeded(async (url, store, nodes) => {
    const scope = await nodeScope(SECRET);
    // At each start, how many of the users' locks the node holds (starting a user is slow on a
    // busy node; the users after it are run by nobody until their lock is taken).
    const heldAtStart: number[] = [];
    const a = node(url, store, "nodea", async () => {
      const [{ n }] = await store.sql`SELECT count(*)::int AS n FROM pg_locks
        WHERE locktype = 'advisory' AND classid::bigint = ${scope.lockClass} AND granted`;
      heldAtStart.push(n);
    });
    nodes.push(a);
    await a.ownership.start();
    assertEquals(heldAtStart, Array(USERS).fill(USERS));
  });
});

Deno.test("cluster ownership: a deleted user's lock is held until their rows are gone", async () => {
  await seeded(async (url, store, nodes) => {
    const a = node(url, store, "nodea");
    nodes.push(a);
    await a.ownership.start();
    const b = node(url, store, "nodeb");
    nodes.push(b);
    await b.ownership.start();
    const [gone] = (await store.users.list(undefined, 10)).map((u) => u.id);
    const holder = a.ownership.owns(gone) ? a : b;
    const other = holder === a ? b : a;
    await holder.ownership.retire(gone);
    // Its rows are still there: neither node starts the user again, the other cannot take it.
    for (const n of [a, b]) await n.ownership.scan();
    assertEquals(await holder.ownership.claim(gone), holder.ownership.nodeId);
    assertEquals(await other.ownership.claim(gone), holder.ownership.nodeId);
    assertEquals(
      [a, b].map((n) => n.acquired.filter((u) => u === gone).length).reduce((x, y) => x + y),
      1,
      "started once, before the deletion",
    );
    // The rows gone, the holder's next scan lets the lock go.
    await store.users.remove(gone);
    await holder.ownership.scan();
    assertEquals(await other.ownership.ownerOf(gone), undefined);
  });
});

Deno.test("cluster ownership: no node takes a suspended user, until the suspension ends", async () => {
  await seeded(async (url, store, nodes) => {
    const [held] = (await store.users.list(undefined, 10)).map((u) => u.id);
    await store.users.update(held, { suspended: true });
    const a = node(url, store, "nodea");
    nodes.push(a);
    await a.ownership.start();
    assertEquals(a.acquired.length, USERS - 1);
    assertEquals(a.acquired.includes(held), false, "a suspended user was started");
    await store.users.update(held, { suspended: false });
    await a.ownership.scan();
    assertEquals(a.acquired.includes(held), true, "the user back was not started");
  });
});
