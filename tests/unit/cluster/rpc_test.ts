/**
 * Calls between nodes (cluster/rpc.ts) over a real PostgreSQL's LISTEN/NOTIFY, sealed as nodes
 * seal them: a result comes back as it was, a DomainError as itself (so the edge answers a
 * forwarded call as a local one), a node that no longer runs the user as MovedError, anything
 * else as an error naming the node; stopping answers the calls still waiting.
 */
import { assert, assertEquals } from "../../support/assert.ts";
import { startPostgres } from "../../support/postgres.ts";
import { openPgStore } from "../../../store/pg/mod.ts";
import { PgChannel } from "../../../cluster/channel.ts";
import { MovedError, Rpc } from "../../../cluster/rpc.ts";
import { DomainError, invalid } from "../../../lib/errors.ts";

const SECRET = "one secret for every node";

/** What a call rejected with, or its result. */
async function outcome(p: Promise<unknown>): Promise<unknown> {
  return await p.then((result) => ({ result }), (err) => err);
}

Deno.test("cluster calls: results, domain errors, moved users, failures, shutdown", async (t) => {
  const pg = await startPostgres();
  const store = await openPgStore(pg.url);
  const owner = new Rpc(new PgChannel(store.sql, SECRET), "owner", {
    echo: (...args: never[]) => Promise.resolve({ got: args }),
    refuse: () => Promise.reject(invalid("No such channel.", "/body/name")),
    moved: () => Promise.reject(new MovedError("not running this user")),
    broken: () => Promise.reject(new TypeError("x is undefined")),
  });
  const caller = new Rpc(new PgChannel(store.sql, SECRET), "caller", {});
  try {
    await owner.start();
    await caller.start();
    await t.step("a result comes back as JSON", async () => {
      assertEquals(await caller.call("owner", "echo", [1, "two", { three: [3] }]), {
        got: [1, "two", { three: [3] }],
      });
    });
    await t.step("a DomainError travels back as itself, with its kind and pointer", async () => {
      const err = await outcome(caller.call("owner", "refuse", []));
      assert(err instanceof DomainError, `${err}`);
      assertEquals([err.kind, err.message, err.path], [
        "invalid",
        "No such channel.",
        "/body/name",
      ]);
    });
    await t.step("a node that no longer runs the user says so: MovedError", async () => {
      const err = await outcome(caller.call("owner", "moved", []));
      assert(err instanceof MovedError, `${err}`);
    });
    await t.step(
      "any other failure, or an unknown method, is an error naming the node",
      async () => {
        const err = await outcome(caller.call("owner", "broken", []));
        assert(err instanceof Error && !(err instanceof DomainError), `${err}`);
        assertEquals(err.message, "on node owner: TypeError: x is undefined");
        const unknown = await outcome(caller.call("owner", "nothing", []));
        assertEquals(
          (unknown as Error).message,
          "on node owner: Error: no such cluster method nothing",
        );
      },
    );
    await t.step(
      "a node with another secret hears nothing: stopping answers the wait",
      async () => {
        const stranger = new Rpc(new PgChannel(store.sql, "another secret"), "stranger", {
          echo: () => Promise.resolve("heard"),
        });
        await stranger.start();
        try {
          const waiting = outcome(caller.call("stranger", "echo", []));
          // The call was sent (NOTIFY is in order): the owner's answer to a later call came first.
          assertEquals(await caller.call("owner", "echo", []), { got: [] });
          await caller.stop();
          const err = await waiting;
          assert(err instanceof DomainError, `${err}`);
          assertEquals([err.kind, err.message], ["upstream", "Parley is shutting down."]);
        } finally {
          await stranger.stop();
        }
      },
    );
  } finally {
    await caller.stop();
    await owner.stop();
    await store.close();
    await pg.close();
  }
});
