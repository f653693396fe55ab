/**
 * Revocations across nodes (cluster/revocations.ts) on a real PostgreSQL: what one node revokes
 * every other node acts on, once, and a command run beside the nodes learns how many run and how
 * many heard it (a node with another secret cannot read it, so it never answers); a node that
 * listens again after its session was lost checks what it might have missed.
 */
import postgres from "postgres";
import { assertEquals } from "../../support/assert.ts";
import { poll } from "../../support/poll.ts";
import { endListening, startPostgres } from "../../support/postgres.ts";
import { openPgStore } from "../../../store/pg/mod.ts";
import { PgChannel } from "../../../cluster/channel.ts";
import { revokeEverywhere, shareRevocations } from "../../../cluster/revocations.ts";
import { nodeScope } from "../../../cluster/ownership.ts";
import { type Revocation, Revocations } from "../../../bouncer/credentials.ts";

const SECRET = "one secret for every node";

Deno.test("revocations: shared between nodes, and counted for a command", async (t) => {
  const pg = await startPostgres();
  const store = await openPgStore(pg.url);
  const stops: (() => Promise<void>)[] = [];
  /** A node: its revocations, what it acted on, and its session named as nodes name theirs. */
  const node = async (id: string, secret = SECRET) => {
    const revocations = new Revocations();
    const acted: Revocation[] = [];
    revocations.listen((r) => acted.push(r));
    const listen = shareRevocations(
      new PgChannel(store.sql, secret),
      id,
      revocations,
      () => Promise.resolve(),
    );
    stops.push(await listen());
    const session = postgres(pg.url, {
      max: 1,
      onnotice: () => {},
      connection: { application_name: `${(await nodeScope(secret)).prefix}${id}` },
    });
    await session`SELECT 1`; // open, so that it is among the live nodes
    stops.push(() => session.end());
    return { revocations, acted };
  };
  try {
    const a = await node("node-a");
    const b = await node("node-b");
    await t.step("what one node revokes, it and every other node act on, once", async () => {
      const r: Revocation = { userId: 7, kind: "token", id: 3 };
      await a.revocations.revoke(r);
      assertEquals(a.acted, [r], "at once, and not again when its own message comes back");
      await poll("node b acted on it", () => b.acted.length === 1);
      assertEquals(b.acted, [r]);
      await b.revocations.revoke({ userId: 7, kind: "user" });
      await poll("node a acted on b's", () => a.acted.length === 2);
      assertEquals(b.acted.length, 2);
    });
    await t.step("a command counts the nodes and those that heard it", async () => {
      const cli = new PgChannel(store.sql, SECRET);
      const r: Revocation = { userId: 8, kind: "password", generation: "g2" };
      assertEquals(await revokeEverywhere(cli, SECRET, r), { nodes: 2, answered: 2 });
      await poll("both acted", () => a.acted.length === 3 && b.acted.length === 3);
      // A node with another secret runs on the database too: counted, never answering.
      const stranger = await node("node-x", "another secret");
      assertEquals(await revokeEverywhere(cli, SECRET, r, 500), { nodes: 3, answered: 2 });
      assertEquals(stranger.acted, []);
      assertEquals(
        await revokeEverywhere(new PgChannel(store.sql, "a third secret"), "a third secret", r, 50),
        { nodes: 3, answered: 0 },
        "no node of this secret: nobody to wait for",
      );
    });
    await t.step("listening again after the session was lost, a node checks again", async () => {
      let checks = 0;
      a.revocations.onMissed(() => checks++);
      // The session holding the LISTENs ends, as at a restart of PostgreSQL: a revocation sent
      // until the client listens again reaches nobody.
      await endListening(pg.url);
      await poll("node a told to check its sessions again", () => checks > 0);
    });
  } finally {
    for (const stop of stops.reverse()) await stop().catch(() => {});
    await store.close();
    await pg.close();
  }
});
