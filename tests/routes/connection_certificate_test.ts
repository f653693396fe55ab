// deno-lint-ignore-file no-explicit-any -- answers are read field by field
/**
 * Each connection's client certificate through the API (both backends: the route tests also run
 * on PostgreSQL): its fingerprint as Convos shows it, stable, one per connection, never the key.
 */
import { createHash } from "node:crypto";
import { assert, assertEquals, assertNotEquals } from "../support/assert.ts";
import { startApp } from "../support/app.ts";
import { pemBytes } from "../../lib/self_signed.ts";

Deno.test("connections carry a client certificate's fingerprint, never its key", async () => {
  const a = await startApp();
  try {
    const admin = a.client();
    await admin.register("admin@example.com");
    // Made when a connection first goes to connect, as Convos does.
    const idle = await admin.post("/api/connections", {
      url: "irc://irc.example.com?tls=1&nick=jane",
      wanted_state: "disconnected",
    });
    assertEquals(idle.body.info.certificate, undefined, "none before a connect");
    const one = await admin.post("/api/connections", {
      url: "irc://irc.example.org?tls=1&nick=jane",
    });
    const two = await admin.post("/api/connections", {
      url: "irc://irc.example.net?tls=1&nick=jane",
    });
    assertEquals([idle.status, one.status, two.status], [200, 200, 200]);
    const fp = one.body.info.certificate.fingerprint;
    assert(/^[0-9a-f]{128}$/.test(fp), fp);
    assertNotEquals(two.body.info.certificate.fingerprint, fp, "one certificate per connection");

    const listed = await admin.get("/api/user?connections=true");
    const again = listed.body.connections.find((c: any) =>
      c.connection_id === one.body.connection_id
    );
    assertEquals(again.info.certificate.fingerprint, fp, "kept, not made anew");
    const record = (await a.deps.store.connections.list(1)).find((c) =>
      c.connectionId === one.body.connection_id
    )!;
    const kept = (await a.deps.store.connections.certificate(record.id))!;
    assertEquals(createHash("sha512").update(pemBytes(kept.cert)).digest("hex"), fp);
    assert(kept.key.includes("PRIVATE KEY"));
    const key = kept.key.split("\n")[1];
    for (const answer of [one.body, listed.body, (await admin.get("/api/connections")).body]) {
      const text = JSON.stringify(answer);
      assert(!text.includes("PRIVATE KEY") && !text.includes(key), "the key stays private");
    }
  } finally {
    await a.close();
  }
});
