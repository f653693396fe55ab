// deno-lint-ignore-file no-explicit-any -- answers are read field by field
/**
 * Client certificates: one per connection, presented on TLS to a real ngircd (which shows it in
 * WHOIS), its fingerprint in the API as Convos has it, the key never leaving Parley, and SASL
 * EXTERNAL against a small TLS server that checks the certificate.
 */
import { createHash } from "node:crypto";
import { assert, assertEquals } from "../support/assert.ts";
import { startApp } from "../support/app.ts";
import { startIrcServer } from "../support/ngircd.ts";
import { startSaslExternalIrc } from "../support/sasl_external_irc.ts";
import { poll } from "../support/poll.ts";
import { pemBytes } from "../../lib/self_signed.ts";

const HEX128 = /^[0-9a-f]{128}$/;

Deno.test("client certificate: presented over TLS, its fingerprint in the API, the key kept", async () => {
  const irc = await startIrcServer({ tls: true });
  const a = await startApp({ PARLEY_TEST_FAST_IRC: "1" });
  try {
    const admin = a.client();
    await admin.register("admin@example.com");
    const made = await admin.post("/api/connections", {
      url: `irc://127.0.0.1:${irc.tlsPort}?tls=1&tls_verify=0&nick=jane`,
    });
    assertEquals(made.status, 200, JSON.stringify(made.body));
    const fingerprint = made.body.info.certificate.fingerprint;
    assert(HEX128.test(fingerprint), `Convos's format: ${fingerprint}`);
    const id = made.body.connection_id;
    const [record] = await a.deps.store.connections.list(1);
    const kept = (await a.deps.store.connections.certificate(record.id))!;
    const der = pemBytes(kept.cert);
    assertEquals(createHash("sha512").update(der).digest("hex"), fingerprint);

    await poll(
      "connected over TLS",
      async () => (await admin.get("/api/connections")).body.connections[0].state === "connected",
    );
    // ngircd shows a user the certificate they presented (SHA-256) in WHOIS.
    const whois = await a.deps.irc.send(1, id, "", "/whois jane") as any;
    assertEquals(
      whois.whois.certfp,
      `has client certificate fingerprint ${createHash("sha256").update(der).digest("hex")}`,
    );

    // The same certificate after a reconnect; the key is in no answer.
    await a.deps.irc.send(1, id, "", "/reconnect");
    await poll(
      "connected again",
      async () => (await admin.get("/api/connections")).body.connections[0].state === "connected",
    );
    const listed = await admin.get("/api/user?connections=true");
    assertEquals(listed.body.connections[0].info.certificate.fingerprint, fingerprint);
    const key = kept.key.split("\n")[1];
    for (const answer of [made.body, listed.body]) {
      const text = JSON.stringify(answer);
      assert(!text.includes("PRIVATE KEY") && !text.includes(key), "the key stays private");
    }
  } finally {
    await a.close();
    await irc.close();
  }
});

Deno.test("client certificate: sasl=external logs in by the certificate", async () => {
  const server = await startSaslExternalIrc();
  const a = await startApp({ PARLEY_TEST_FAST_IRC: "1" });
  try {
    const admin = a.client();
    await admin.register("admin@example.com");
    const url = `irc://127.0.0.1:${server.port}?tls=1&tls_verify=0&sasl=external&nick=jane`;
    const made = await admin.post("/api/connections", { url, wanted_state: "disconnected" });
    assertEquals(made.status, 200, JSON.stringify(made.body));
    const id = made.body.connection_id;

    // Not registered with services yet: refused, and not retried.
    server.accepted = "0".repeat(128);
    const refused = await admin.post(`/api/connection/${id}`, { wanted_state: "connected" });
    assertEquals(refused.status, 424, JSON.stringify(refused.body));
    assert(/SASL/.test(refused.body.errors[0].message), refused.body.errors[0].message);
    // Made at the first connect: now the API shows what the user registers with services.
    const fingerprint = (await admin.get("/api/connections")).body.connections[0].info
      .certificate.fingerprint;
    assertEquals(server.presented, [fingerprint], "the certificate was presented");

    // Registered (NickServ CERT ADD with the fingerprint the API shows): logged in.
    server.accepted = fingerprint;
    const ok = await admin.post(`/api/connection/${id}`, { wanted_state: "connected" });
    assertEquals(ok.status, 200, JSON.stringify(ok.body));
    assertEquals(ok.body.state, "connected");
    assertEquals(server.outcomes, ["904", "903"]);
    const c = await poll("authenticated", async () => {
      const conn = (await admin.get("/api/connections")).body.connections[0];
      return conn.info.authenticated && conn;
    });
    assertEquals(c.info.certificate.fingerprint, fingerprint);
  } finally {
    await a.close();
    await server.close();
  }
});
