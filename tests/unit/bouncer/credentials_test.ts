/**
 * bouncer/credentials.ts: which revocation ends which session, what the session is told, whether
 * a credential still holds against the store as it is now, and the node's revocation fan-out.
 */
import { assert, assertEquals } from "../../support/assert.ts";
import {
  type Credential,
  credentialHolds,
  endedText,
  ends,
  passwordGeneration,
  type Revocation,
  Revocations,
  stillValid,
} from "../../../bouncer/credentials.ts";
import { logged, withStore } from "./fakes.ts";

Deno.test("credentials: each revocation ends the sessions it names, of its user only", async () => {
  const gen = await passwordGeneration("hash-1");
  const token: Credential = { kind: "token", id: 7 };
  const password: Credential = { kind: "password", generation: gen };
  const cert: Credential = { kind: "certificate", fingerprint: "ab".repeat(32) };
  const cases: [Revocation, Credential | undefined, boolean][] = [
    [{ userId: 1, kind: "user" }, token, true],
    [{ userId: 1, kind: "user" }, undefined, true],
    [{ userId: 2, kind: "user" }, token, false],
    [{ userId: 1, kind: "token", id: 7 }, token, true],
    [{ userId: 1, kind: "token", id: 8 }, token, false],
    [{ userId: 1, kind: "token", id: 7 }, password, false],
    [{ userId: 1, kind: "password", generation: "other" }, password, true],
    [{ userId: 1, kind: "password", generation: gen }, password, false],
    [{ userId: 1, kind: "password", generation: "other" }, token, false],
    [{ userId: 1, kind: "password", generation: "other" }, undefined, false],
    [{ userId: 1, kind: "certificate", fingerprint: "ab".repeat(32) }, cert, true],
    [{ userId: 1, kind: "certificate", fingerprint: "cd".repeat(32) }, cert, false],
    [{ userId: 1, kind: "certificate", fingerprint: "ab".repeat(32) }, password, false],
  ];
  for (const [r, c, expected] of cases) {
    assertEquals(ends(r, 1, c), expected, `${JSON.stringify(r)} on ${JSON.stringify(c)}`);
  }
});

Deno.test("credentials: each kind of revocation says why the session ends", () => {
  const texts = new Set([
    endedText({ userId: 1, kind: "token", id: 1 }),
    endedText({ userId: 1, kind: "password", generation: "x" }),
    endedText({ userId: 1, kind: "certificate", fingerprint: "x" }),
    endedText({ userId: 1, kind: "user" }),
  ]);
  assertEquals(texts.size, 4);
  assert(texts.has("The app token was revoked"));
});

Deno.test("credentials: a password's generation follows its hash, and is not the hash", async () => {
  const a = await passwordGeneration("$argon2id$hash-a");
  assertEquals(a, await passwordGeneration("$argon2id$hash-a"));
  assert(a !== await passwordGeneration("$argon2id$hash-b"));
  assertEquals(a.length, 32);
  assert(!a.includes("hash-a"));
});

Deno.test("credentials: whether a credential still holds, as the store is now", async () => {
  await withStore(async (store) => {
    const user = await store.users.create("jane@example.com", "hash-1", []);
    const token = (await store.appTokens.create(user.id, "phone", "tokenhash"))!;
    const byToken: Credential = { kind: "token", id: token.id };
    const byPassword: Credential = {
      kind: "password",
      generation: await passwordGeneration("hash-1"),
    };
    const fp = "ef".repeat(32);
    const byCert: Credential = { kind: "certificate", fingerprint: fp };
    await store.certfp.add(user.id, fp);
    for (const c of [byToken, byPassword, byCert, undefined]) {
      assert(await credentialHolds(store, user, c), JSON.stringify(c));
    }
    await store.appTokens.remove(user.id, token.id);
    assertEquals(await credentialHolds(store, user, byToken), false, "a revoked token");
    const changed = await store.users.update(user.id, { passwordHash: "hash-2" });
    assertEquals(await credentialHolds(store, changed!, byPassword), false, "a new password");
    await store.certfp.remove(user.id, fp);
    assertEquals(await credentialHolds(store, user, byCert), false, "a removed certificate");
    // Another user's certificate does not hold for this one.
    const other = await store.users.create("joe@example.com", "x", []);
    await store.certfp.add(other.id, fp);
    assertEquals(await credentialHolds(store, user, byCert), false);
    assert(await stillValid(store, other.id, byCert));
    await store.users.remove(other.id);
    assertEquals(await stillValid(store, other.id, undefined), false, "a deleted user");
  });
});

Deno.test("revocations: every listener hears each one, a failing one stops no other", async () => {
  const r = new Revocations();
  const heard: string[] = [];
  r.listen(() => {
    throw new Error("a listener that fails");
  });
  const stop = r.listen((x) => heard.push(`a:${x.kind}`));
  r.listen((x) => heard.push(`b:${x.kind}`));
  const shared: Revocation[] = [];
  r.share = (x) => {
    shared.push(x);
    return Promise.reject(new Error("the other nodes are gone"));
  };
  // A failed listener and a failed share are logged, not thrown.
  const { lines } = await logged(() => r.revoke({ userId: 1, kind: "user" }));
  assertEquals(heard, ["a:user", "b:user"]);
  assertEquals(shared.length, 1);
  assert(lines.some((l) => l.includes("revocation not acted on")), lines.join("\n"));
  assert(lines.some((l) => l.includes("not shared with the other nodes")), lines.join("\n"));
  stop();
  // From another node: not shared again.
  await logged(() => r.deliver({ userId: 1, kind: "token", id: 3 }));
  assertEquals(heard, ["a:user", "b:user", "b:token"]);
  assertEquals(shared.length, 1);
});
