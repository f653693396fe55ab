/**
 * Registered certificate fingerprints, on every backend: one owner per fingerprint, listed per
 * user, removed only by their owner, gone with the user; and a connection's client certificate
 * replaced (BouncerServ `certfp generate`).
 */
import { assertEquals } from "../support/assert.ts";
import { forEachStore } from "../support/backends.ts";

const A = "a".repeat(64);
const B = "b".repeat(64);

forEachStore("certfp store: one owner per fingerprint, listed, removed", async (store) => {
  const jane = (await store.users.create("jane@example.com", "x", [])).id;
  const joe = (await store.users.create("joe@example.com", "x", [])).id;
  assertEquals(await store.certfp.add(jane, A), true);
  assertEquals(await store.certfp.add(jane, B), true);
  assertEquals(await store.certfp.add(joe, A), false, "registered to jane already");
  assertEquals(await store.certfp.add(jane, A), false);
  assertEquals(await store.certfp.owner(A), jane);
  assertEquals(await store.certfp.owner("c".repeat(64)), undefined);
  assertEquals((await store.certfp.list(jane)).map((c) => c.fingerprint), [A, B]);
  assertEquals(await store.certfp.list(joe), []);
  assertEquals(await store.certfp.remove(joe, A), false, "not joe's");
  assertEquals(await store.certfp.remove(jane, A), true);
  assertEquals(await store.certfp.owner(A), undefined);
  await store.users.remove(jane);
  assertEquals(await store.certfp.owner(B), undefined, "gone with the user");
});

forEachStore("connection store: a client certificate is replaced", async (store) => {
  const jane = (await store.users.create("jane@example.com", "x", [])).id;
  const c = await store.connections.create({
    userId: jane,
    connectionId: "irc-x",
    name: "x",
    url: "irc://irc.example.org",
    onConnectCommands: [],
    wantedState: "disconnected",
  });
  const one = { cert: "C1", key: "K1", fingerprint: "f1" };
  const two = { cert: "C2", key: "K2", fingerprint: "f2" };
  assertEquals(await store.connections.setCertificate(c.id, one), one);
  assertEquals(await store.connections.setCertificate(c.id, two), one, "set keeps the first");
  await store.connections.replaceCertificate(c.id, two);
  assertEquals(await store.connections.certificate(c.id), two);
});
