/**
 * `GET /healthz` and `GET /readyz` (routes/health.ts): the process answers; ready when the store
 * answers, this node has joined its cluster (on PostgreSQL) and the IRC listener is bound.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { startApp } from "../support/app.ts";
import type { Store } from "../../store/mod.ts";

/** A view of the store whose every query of users fails, as a database that went away. */
function failingStore(store: Store): Store {
  const users = Object.create(store.users);
  users.count = () => Promise.reject(new Error("connect ECONNREFUSED 10.1.2.3:5432"));
  return Object.assign(Object.create(store), { users });
}

Deno.test("healthz answers; readyz is ready once IRC has started", async () => {
  const a = await startApp();
  try {
    const health = await a.request("/healthz");
    assertEquals([health.status, health.body], [200, { status: "ok" }]);
    assertEquals(health.headers.get("cache-control"), "no-store");
    // On PostgreSQL this node is not a member of the cluster until IRC starts.
    await a.deps.irc.start();
    const ready = await a.request("/readyz");
    assertEquals(ready.status, 200, JSON.stringify(ready.body));
    assertEquals(ready.body, { status: "ok", checks: { store: "ok", irc: "ok" } });
  } finally {
    await a.close();
  }
});

Deno.test("readyz: 503 with a reason when the store does not answer, naming no host", async () => {
  const a = await startApp({}, failingStore);
  try {
    await a.deps.irc.start();
    const res = await a.request("/readyz");
    assertEquals(res.status, 503);
    assertEquals(res.body.status, "unavailable");
    assertEquals(res.body.reason, "the store failed to answer");
    assertEquals(res.body.checks.store, "the store failed to answer");
    assert(
      !JSON.stringify(res.body).includes("10.1.2.3"),
      "the database's address stays in the log",
    );
    // The process itself still answers.
    assertEquals((await a.request("/healthz")).status, 200);
  } finally {
    await a.close();
  }
});

Deno.test("readyz: 503 until the IRC listener is bound, when one is configured", async () => {
  const a = await startApp({ PARLEY_IRC_LISTEN: "irc://127.0.0.1:6697" });
  try {
    await a.deps.irc.start();
    const before = await a.request("/readyz");
    assertEquals(before.status, 503);
    assertEquals(before.body.reason, "the IRC listener is not bound yet");
    // What the daemon does once the listener is up.
    a.deps.bouncer = { acceptSocket() {} };
    const after = await a.request("/readyz");
    assertEquals(after.status, 200, JSON.stringify(after.body));
    assertEquals(after.body.checks.irc_listener, "ok");
  } finally {
    await a.close();
  }
});

Deno.test("readyz: on PostgreSQL, 503 before the node joins and once its lock session is gone", async (t) => {
  const a = await startApp();
  try {
    if (!a.deps.store.backend.clustered) {
      // The SQLite pass has no cluster; the runner's PostgreSQL pass runs this.
      await t.step({ name: "skipped: SQLite runs no cluster", ignore: true, fn() {} });
      return;
    }
    const before = await a.request("/readyz");
    assertEquals(before.status, 503);
    assertEquals(before.body.checks.irc, "the node has not joined the cluster yet");
    await a.deps.irc.start();
    assertEquals((await a.request("/readyz")).status, 200);
    // Another session ends this node's lock session (as a database restart would).
    const { pgStoreOf } = await import("../../store/pg/mod.ts");
    const sql = pgStoreOf(a.deps.store).sql;
    await sql`SELECT pg_terminate_backend(pid) FROM pg_stat_activity
      WHERE datname = current_database() AND application_name LIKE 'parley-node:%'`;
    let res = await a.request("/readyz");
    for (let i = 0; i < 200 && res.status === 200; i++) {
      await new Promise((r) => setTimeout(r, 25));
      res = await a.request("/readyz");
    }
    assertEquals(res.status, 503);
    assertEquals(res.body.checks.irc, "the node's lock session on PostgreSQL is not open");
  } finally {
    await a.close();
  }
});
