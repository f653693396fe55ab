/**
 * bouncer/auth.ts: the username `EMAIL/NETWORK[@CLIENT]`, and a login checked against a real
 * store and the web's login throttle: a password or an app token, a registered certificate
 * (SASL EXTERNAL) and the identity it may name, and every refusal.
 */
import { assert, assertEquals } from "../../support/assert.ts";
import {
  authenticate,
  authenticateCertificate,
  certificateFingerprint,
  type Login,
  parseIdentity,
} from "../../../bouncer/auth.ts";
import { passwordGeneration } from "../../../bouncer/credentials.ts";
import { LOGIN_LIMITS, LoginThrottle } from "../../../http/throttle.ts";
import { newAppToken } from "../../../lib/app_token.ts";
import { hashPassword } from "../../../lib/password.ts";
import type { Store } from "../../../store/mod.ts";
import { withStore } from "./fakes.ts";

const PASSWORD = "correct horse battery";
const ADDRESS = "192.0.2.7";

Deno.test("auth: a username is EMAIL[@CLIENT], EMAIL/NETWORK or EMAIL/NETWORK@CLIENT", () => {
  const cases: [string, ReturnType<typeof parseIdentity>][] = [
    ["jane@example.com", { email: "jane@example.com", network: "", client: "" }],
    ["jane@example.com/irc-x", { email: "jane@example.com", network: "irc-x", client: "" }],
    ["jane@example.com/irc-x@phone", {
      email: "jane@example.com",
      network: "irc-x",
      client: "phone",
    }],
    ["jane@example.com/irc@x@my_laptop.2", {
      email: "jane@example.com",
      network: "irc@x",
      client: "my_laptop.2",
    }],
    // No network: a second @ begins the client's name.
    ["jane@example.com@gamja", { email: "jane@example.com", network: "", client: "gamja" }],
    ["jane@example.com@bad name", undefined],
    ["jane", undefined], // no email
    ["jane/irc-x", undefined],
    ["jane@example.com/", undefined], // an empty network
    ["jane@example.com/@phone", undefined],
    ["jane@example.com/irc-x@", undefined], // an empty client name
    ["jane@example.com/irc-x@bad name", undefined],
    [`jane@example.com/irc-x@${"c".repeat(33)}`, undefined],
    [`${"j".repeat(310)}@example.com`, undefined], // too long
  ];
  for (const [text, expected] of cases) assertEquals(parseIdentity(text), expected, text);
});

Deno.test("auth: the certificate fingerprint is SHA-256 of the DER, lower-case hex", () => {
  const fp = certificateFingerprint(new TextEncoder().encode("abc"));
  assertEquals(fp, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
});

async function setup(store: Store) {
  const user = await store.users.create("jane@example.com", await hashPassword(PASSWORD), []);
  const connection = await store.connections.create({
    userId: user.id,
    connectionId: "irc-test",
    name: "test",
    url: "irc://127.0.0.1:6667?nick=jane",
    onConnectCommands: [],
    wantedState: "disconnected",
  });
  return { user, connection, deps: { store, loginThrottle: new LoginThrottle() } };
}

Deno.test("auth: a password logs in, with or without a network; the network must exist", async () => {
  await withStore(async (store) => {
    const { user, connection, deps } = await setup(store);
    const r = await authenticate(deps, "jane@example.com/irc-test@phone", PASSWORD, ADDRESS);
    assert(typeof r === "object", String(r));
    assertEquals(r.user.id, user.id);
    assertEquals(r.identity, { email: "jane@example.com", network: "irc-test", client: "phone" });
    assertEquals(r.connection?.id, connection.id);
    assertEquals(r.credential, {
      kind: "password",
      generation: await passwordGeneration(user.passwordHash),
    });
    const bare = await authenticate(deps, "jane@example.com", PASSWORD, ADDRESS) as Login;
    assertEquals(bare.connection, undefined);
    assertEquals(
      await authenticate(deps, "jane@example.com/irc-nope", PASSWORD, ADDRESS),
      "no-network",
    );
  });
});

Deno.test("auth: a wrong password, an unknown email or a bad username is refused", async () => {
  await withStore(async (store) => {
    const { deps } = await setup(store);
    assertEquals(
      await authenticate(deps, "jane@example.com/irc-test", "wrong", ADDRESS),
      "invalid",
    );
    assertEquals(
      await authenticate(deps, "joe@example.com/irc-test", PASSWORD, ADDRESS),
      "invalid",
    );
    assertEquals(await authenticate(deps, "jane", PASSWORD, ADDRESS), "invalid");
    assertEquals(
      await authenticate(deps, "jane@example.com/irc-test@a b", PASSWORD, ADDRESS),
      "invalid",
    );
  });
});

Deno.test("auth: an app token logs in as a token, and its use is recorded", async () => {
  await withStore(async (store) => {
    const { user, deps } = await setup(store);
    const { token, hash } = await newAppToken();
    const made = (await store.appTokens.create(user.id, "phone", hash))!;
    const r = await authenticate(deps, "jane@example.com/irc-test", token, ADDRESS) as Login;
    assertEquals(r.credential, { kind: "token", id: made.id });
    const [listed] = await store.appTokens.list(user.id);
    assert(listed.lastUsed, "last used is set");
    // Another user's token is no password of this one.
    const other = await store.users.create(
      "joe@example.com",
      await hashPassword("x".repeat(12)),
      [],
    );
    assertEquals(await authenticate(deps, "joe@example.com", token, ADDRESS), "invalid");
    assert(other.id !== user.id);
    await store.appTokens.remove(user.id, made.id);
    assertEquals(await authenticate(deps, "jane@example.com", token, ADDRESS), "invalid");
  });
});

Deno.test("auth: failures count per email whatever the client name, then the login waits", async () => {
  await withStore(async (store) => {
    const { deps } = await setup(store);
    deps.loginThrottle = new LoginThrottle({ ...LOGIN_LIMITS, free: 2, baseDelayMs: 60_000 });
    assertEquals(await authenticate(deps, "jane@example.com/irc-test@a", "x", ADDRESS), "invalid");
    assertEquals(await authenticate(deps, "jane@example.com/irc-test@b", "x", ADDRESS), "invalid");
    // Even the right password waits now, from this address.
    assertEquals(
      await authenticate(deps, "jane@example.com/irc-test", PASSWORD, ADDRESS),
      "throttled",
    );
    assert(typeof await authenticate(deps, "jane@example.com", PASSWORD, "192.0.2.8") === "object");
  });
});

Deno.test("auth: a registered certificate logs its owner in; the identity names the network", async () => {
  await withStore(async (store) => {
    const { user, connection, deps } = await setup(store);
    const der = new TextEncoder().encode("a certificate");
    const unknown = new TextEncoder().encode("another certificate");
    await store.certfp.add(user.id, certificateFingerprint(der));
    const cert = (d: Uint8Array | undefined, name: string) =>
      authenticateCertificate(deps, d, name, ADDRESS);
    assertEquals(await cert(undefined, "/irc-test"), "invalid", "no certificate");
    assertEquals(await cert(unknown, "/irc-test"), "invalid", "not registered");
    const r = await cert(der, "/irc-test@phone") as Login;
    assertEquals(r.user.id, user.id);
    assertEquals(r.identity, { email: "jane@example.com", network: "irc-test", client: "phone" });
    assertEquals(r.connection?.id, connection.id);
    assertEquals(r.credential, { kind: "certificate", fingerprint: certificateFingerprint(der) });
    assertEquals(
      (await cert(der, "JANE@example.com/irc-test") as Login).connection?.id,
      connection.id,
    );
    assertEquals(await cert(der, "joe@example.com/irc-test"), "invalid", "someone else's email");
    assertEquals(await cert(der, "/irc-nope"), "no-network");
    assertEquals(await cert(der, "/irc-test@bad name"), "invalid");
    // A client's default user name (no slash) names no network: it manages networks.
    const bare = await cert(der, "jane") as Login;
    assertEquals(bare.identity, { email: "jane@example.com", network: "", client: "" });
    assertEquals(bare.connection, undefined);
    // An email without a network must be the owner's too; a client's name may follow it.
    assertEquals(await cert(der, "joe@example.com"), "invalid", "someone else's email, no network");
    const named = await cert(der, "Jane@example.com@laptop") as Login;
    assertEquals(named.identity, { email: "jane@example.com", network: "", client: "laptop" });
  });
});

Deno.test("bouncer identity: EMAIL/NETWORK[@CLIENT]", () => {
  assertEquals(parseIdentity("jane@example.com/irc-libera@phone"), {
    email: "jane@example.com",
    network: "irc-libera",
    client: "phone",
  });
  assertEquals(parseIdentity("jane@example.com/irc-libera"), {
    email: "jane@example.com",
    network: "irc-libera",
    client: "",
  });
  assertEquals(parseIdentity("jane@example.com")?.network, "");
  assertEquals(parseIdentity("nobody"), undefined);
  assertEquals(parseIdentity("jane@example.com/net@bad name"), undefined);
});
