/**
 * bouncer/service/certfp.ts: a network's own client certificate (fingerprint, generate), and the
 * certificates that log the user in to Parley (add, list, remove: a removed one's clients end).
 */
import { assert, assertEquals } from "../../../support/assert.ts";
import { withStore } from "../fakes.ts";
import { service } from "./service.ts";
import { MAX_CERTFPS } from "../../../../store/certfp.ts";

const FP = "0123456789abcdef".repeat(4);

Deno.test("bouncerserv certfp add, list, remove; wrong fingerprints", async () => {
  await withStore(async (store) => {
    const { as, revoked } = service(store);
    const jane = await store.users.create("jane@example.com", "x", []);
    const run = as(jane);
    const digits = "A fingerprint is the SHA-256 of the certificate: 64 hex digits.";
    assertEquals(await run("certfp list"), ["No certificates log you in."]);
    assertEquals(
      (await run("certfp add"))[0],
      "This client presented no certificate: give the certificate's SHA-256 fingerprint.",
    );
    assertEquals(await run("certfp add not-one"), [digits]);
    assertEquals(await run(`certfp add ${FP.slice(1)}`), [digits]);
    assertEquals(
      (await run(`certfp add ${FP} ${FP}`))[0],
      "Give the certificate's SHA-256 fingerprint.",
    );
    // Colons and case do not matter.
    const typed = FP.toUpperCase().match(/../g)!.join(":");
    assertEquals(await run(`certfp add ${typed}`), [
      "Added: a client with this certificate may log in as you with SASL EXTERNAL.",
    ]);
    assertEquals(await run(`certfp add ${FP}`), ["That certificate is registered already."]);
    // Logged in with an app token or a certificate: no new way in that outlives them.
    const byToken = as(jane, "", undefined, false);
    assertEquals(
      (await byToken(`certfp add ${"e".repeat(64)}`))[0],
      "Adding a certificate needs your password: log in with it (not an app token or a certificate), or add it on the account page.",
    );
    assertEquals(await store.certfp.owner("e".repeat(64)), undefined);
    // Without a fingerprint, the one this client presented.
    const presented = "f".repeat(64);
    assertEquals((await as(jane, "", presented)("certfp add"))[0].startsWith("Added"), true);
    assertEquals((await run("certfp list")).sort(), [FP, presented].sort());
    assertEquals(await store.certfp.owner(FP), jane.id);
    const joe = await store.users.create("joe@example.com", "x", []);
    assertEquals(await as(joe)(`certfp remove ${FP}`), ["No such certificate of yours."]);
    assertEquals(revoked, []);
    assertEquals(await run(`certfp remove ${typed}`), ["Removed."]);
    assertEquals(revoked, [{ userId: jane.id, kind: "certificate", fingerprint: FP }]);
    assertEquals(await store.certfp.owner(FP), undefined);
    assertEquals((await run("certfp remove"))[0], "Give the certificate's SHA-256 fingerprint.");
    // Bounded per user.
    const fp = (i: number) => (i + 1).toString(16).padStart(64, "0");
    for (let i = (await store.certfp.list(jane.id)).length; i < MAX_CERTFPS; i++) {
      assertEquals((await run(`certfp add ${fp(i)}`))[0].startsWith("Added"), true);
    }
    assertEquals(await run(`certfp add ${fp(MAX_CERTFPS)}`), [
      `At most ${MAX_CERTFPS} certificates: remove one no longer used.`,
    ]);
  });
});

Deno.test("bouncerserv certfp generate and fingerprint: the network's own certificate", async () => {
  await withStore(async (store) => {
    const { as, connections } = service(store);
    const jane = await store.users.create("jane@example.com", "x", []);
    const made = await connections.create(jane, {
      url: "ircs://irc.example.org?nick=jane",
      wanted_state: "disconnected",
    }, "/");
    const id = made.connection_id;
    const shown = await as(jane)("certfp fingerprint");
    assertEquals(shown.length, 2);
    assert(/^SHA-256 fingerprint: [0-9a-f]{64}$/.test(shown[0]), shown[0]);
    assert(/^SHA-512 fingerprint: [0-9a-f:]{128,}$/i.test(shown[1]), shown[1]);
    assertEquals(await as(jane)("certfp fingerprint"), shown, "made once, then kept");
    const fresh = await as(jane)(`certfp generate -network ${id}`);
    assertEquals(fresh[0], `${id} has a new client certificate, used from its next connect.`);
    assert(fresh[1] !== shown[0], "a new certificate");
    assertEquals(await as(jane)("certfp fingerprint"), fresh.slice(1));
  });
});
