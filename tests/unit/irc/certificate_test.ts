/**
 * irc/certificate.ts over a real store: a connection's certificate is made once, kept, and two
 * asks at once (the API's answer and the first connect) get the one that was stored.
 */
import { X509Certificate } from "node:crypto";
import { assert, assertEquals } from "../../support/assert.ts";
import { openStore } from "../../../store/mod.ts";
import { clientCertificate } from "../../../irc/certificate.ts";
import { aliceRecord } from "../../support/fake_connection.ts";

Deno.test("client certificate: two asks at once make one, both get the stored one", async () => {
  const dir = await Deno.makeTempDir({ prefix: "parley-certificate-" });
  const store = await openStore(dir);
  try {
    const { record } = await aliceRecord(store);
    const connections = store.connections;
    const setCertificate = connections.setCertificate.bind(connections);
    let made = 0;
    connections.setCertificate = (id, c) => {
      made++;
      return setCertificate(id, c);
    };
    const other = { ...record };
    const [a, b] = await Promise.all([
      clientCertificate(store, record),
      clientCertificate(store, other),
    ]);
    assertEquals(made, 1, "one certificate made for both asks");
    const kept = (await connections.certificate(record.id))!;
    assertEquals([a.fingerprint, b.fingerprint], [kept.fingerprint, kept.fingerprint]);
    assertEquals([record.certFingerprint, other.certFingerprint], [a.fingerprint, a.fingerprint]);
    assertEquals(new X509Certificate(kept.cert).subject, "CN=alice");
    assert(kept.key.startsWith("-----BEGIN PRIVATE KEY-----\n"), "PKCS#8 PEM, as before");

    const again = await clientCertificate(store, record);
    assertEquals([again.fingerprint, made], [kept.fingerprint, 1], "kept, not made anew");
  } finally {
    await store.close();
    await Deno.remove(dir, { recursive: true });
  }
});
