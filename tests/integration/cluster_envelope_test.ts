/**
 * Messages between nodes against a database role that may connect but holds no table privilege
 * (what PUBLIC gets by default): it can LISTEN and NOTIFY on every channel, and must neither read
 * what nodes tell each other nor make a node believe anything.
 */
import postgres from "postgres";
import { Buffer } from "node:buffer";
import { assert, assertEquals } from "../support/assert.ts";
import { poll } from "../support/poll.ts";
import { startPostgres } from "../support/postgres.ts";
import { openPgStore } from "../../store/pg/mod.ts";
import { PgChannel } from "../../cluster/channel.ts";
import { ClusterKeys, WINDOW_MS } from "../../cluster/envelope.ts";

const SECRET = "one secret for every node";
const CHANNEL = "parley_events";

Deno.test("cluster envelopes: unreadable and unforgeable by a role without privileges", async (t) => {
  const pg = await startPostgres();
  const store = await openPgStore(pg.url);
  await store.sql`CREATE ROLE intruder LOGIN`;
  const intruder = postgres(pg.url.replace("//parley@", "//intruder@"), {
    max: 1,
    onnotice: () => {},
  });
  const sender = new PgChannel(store.sql, SECRET);
  const receiver = new PgChannel(store.sql, SECRET);
  const got: unknown[] = [];
  const seen: string[] = [];
  const unlisten = await receiver.listen(CHANNEL, (m) => got.push(m));
  const { unlisten: stopSpying } = await intruder.listen(CHANNEL, (p) => seen.push(p));
  /** Sends a message the receiver must get, and waits until it has: what came before was read. */
  const sentinel = async (n: number) => {
    await sender.send(CHANNEL, { sentinel: n });
    await poll(`sentinel ${n}`, () => got.some((m) => (m as { sentinel?: number }).sentinel === n));
  };
  try {
    await t.step("a listener without privileges sees no message text", async () => {
      const small = { message: "the launch code is 4711" };
      const large = { message: "a long secret line ".repeat(1000) };
      await sender.send(CHANNEL, small);
      await sender.send(CHANNEL, large);
      await poll("both messages", () => got.length === 2 && seen.length === 2);
      assertEquals(got, [small, large]);
      for (const payload of seen) {
        assert(!payload.includes("launch code"), payload);
        assert(!payload.includes("secret line"), payload);
        assert(payload.length < 8000, "fits a NOTIFY");
      }
      // The large one's ciphertext is in a table the role cannot read.
      const denied = await intruder`SELECT payload FROM cluster_payloads`.then(
        () => "read",
        (err) => String(err),
      );
      assert(/permission denied/.test(denied), denied);
    });

    await t.step(
      "forged, replayed, moved, tampered, stale and foreign envelopes are refused",
      async () => {
        const before = got.length;
        const captured = seen[0];
        // The old format: plain JSON.
        await intruder.notify(
          CHANNEL,
          JSON.stringify({ m: { message: "re-enter your password" } }),
        );
        // The same envelope again.
        await intruder.notify(CHANNEL, captured);
        // On another channel the node listens on.
        const other: unknown[] = [];
        const unlistenOther = await receiver.listen("parley_logins", (m) => other.push(m));
        await intruder.notify("parley_logins", captured);
        // One character of the ciphertext changed.
        const parts = captured.split(".");
        parts[3] = (parts[3][0] === "A" ? "B" : "A") + parts[3].slice(1);
        await intruder.notify(CHANNEL, parts.join("."));
        // The protected header rewritten to name the other channel (the tag covers it).
        const header = JSON.parse(new TextDecoder().decode(Buffer.from(parts[0], "base64url")));
        const moved = [
          Buffer.from(JSON.stringify({ ...header, ch: "parley_logins" })).toString("base64url"),
        ];
        await intruder.notify(
          "parley_logins",
          [...moved, ...captured.split(".").slice(1)].join("."),
        );
        // Sealed by whoever knows another secret.
        const stranger = await ClusterKeys.derive("another installation's secret");
        await intruder.notify(CHANNEL, (await stranger.seal(CHANNEL, '{"forged":1}')).inline);
        // Sealed with the right keys, but older than the window (a recording played back later).
        const keys = await ClusterKeys.derive(SECRET);
        const stale = await keys.seal(CHANNEL, '{"stale":1}', Date.now() - 2 * WINDOW_MS);
        await intruder.notify(CHANNEL, stale.inline);
        // A reference to a stored payload, one character of it changed (to point elsewhere).
        const ref = (await keys.reference(CHANNEL, stale.jti, 1)).split(".");
        ref[3] = (ref[3][0] === "A" ? "B" : "A") + ref[3].slice(1);
        await intruder.notify(CHANNEL, ref.join("."));
        // A sealed reference to a row holding another envelope than the one it names.
        const [row] = await store.sql`INSERT INTO cluster_payloads (payload, created)
          VALUES (${stale.inline}, 0) RETURNING id`;
        await intruder.notify(
          CHANNEL,
          await keys.reference(CHANNEL, "another-jti", Number(row.id)),
        );
        await sentinel(1);
        assertEquals(got.slice(before), [{ sentinel: 1 }]);
        await sender.send("parley_logins", { sentinel: 2 });
        await poll("the logins sentinel", () => other.length > 0);
        assertEquals(other, [{ sentinel: 2 }]);
        await unlistenOther();
      },
    );

    await t.step("a fresh envelope sealed with the shared secret is accepted once", async () => {
      const before = got.length;
      const keys = await ClusterKeys.derive(SECRET);
      const fresh = await keys.seal(CHANNEL, '{"from":"another node"}');
      await intruder.notify(CHANNEL, fresh.inline);
      await intruder.notify(CHANNEL, fresh.inline);
      await sentinel(3);
      assertEquals(got.slice(before), [{ from: "another node" }, { sentinel: 3 }]);
    });
  } finally {
    await stopSpying();
    await unlisten();
    await intruder.end();
    await store.close();
    await pg.close();
  }
});
