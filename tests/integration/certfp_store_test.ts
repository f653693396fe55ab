/**
 * Registered certificate fingerprints, on every backend: one owner per fingerprint, listed per
 * user, removed only by their owner, gone with the user, bounded per user (app tokens too); and a
 * connection's client certificate replaced (BouncerServ `certfp generate`).
 */
import { assertEquals } from "../support/assert.ts";
import { forEachStore } from "../support/backends.ts";
import { MAX_CERTFPS } from "../../store/certfp.ts";
import { MAX_APP_TOKENS } from "../../store/app_tokens.ts";

const A = "a".repeat(64);
const B = "b".repeat(64);

forEachStore("certfp store: one owner per fingerprint, listed, removed", async (store) => {
  const jane = (await store.users.create("jane@example.com", "x", [])).id;
  const joe = (await store.users.create("joe@example.com", "x", [])).id;
  assertEquals(await store.certfp.add(jane, A), "added");
  assertEquals(await store.certfp.add(jane, B), "added");
  assertEquals(await store.certfp.add(joe, A), "exists", "registered to jane already");
  assertEquals(await store.certfp.add(jane, A), "exists");
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

forEachStore("certificates and app tokens: bounded per user, made at once", async (store) => {
  const jane = (await store.users.create("jane@example.com", "x", [])).id;
  const joe = (await store.users.create("joe@example.com", "x", [])).id;
  const fp = (i: number) => i.toString(16).padStart(64, "0");
  // All at once: the user's row lock keeps the count true.
  const added = await Promise.all(
    Array.from({ length: MAX_CERTFPS + 5 }, (_, i) => store.certfp.add(jane, fp(i))),
  );
  assertEquals(added.filter((a) => a === "added").length, MAX_CERTFPS);
  assertEquals(added.filter((a) => a === "full").length, 5);
  assertEquals((await store.certfp.list(jane)).length, MAX_CERTFPS);
  assertEquals(await store.certfp.add(jane, fp(0)), "exists", "registered already, full or not");
  assertEquals(await store.certfp.add(joe, fp(999)), "added", "another user's own count");

  const made = await Promise.all(
    Array.from(
      { length: MAX_APP_TOKENS + 5 },
      (_, i) => store.appTokens.create(jane, `t${i}`, `hash${i}`),
    ),
  );
  assertEquals(made.filter((t) => t === undefined).length, 5);
  assertEquals((await store.appTokens.list(jane)).length, MAX_APP_TOKENS);
  await store.appTokens.remove(jane, made.find((t) => t)!.id);
  assertEquals((await store.appTokens.create(jane, "again", "hash-again"))?.name, "again");
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
