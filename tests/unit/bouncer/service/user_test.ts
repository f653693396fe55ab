/**
 * bouncer/service/user.ts: `user status`, and for admins `user create|update|delete` with the
 * account routes' rules (valid email and password, the last admin, the only user) and what a
 * change ends (sessions, IRC clients).
 */
import { assert, assertEquals } from "../../../support/assert.ts";
import { passwordGeneration } from "../../../../bouncer/credentials.ts";
import { withStore } from "../fakes.ts";
import { service } from "./service.ts";

Deno.test("bouncerserv user status: oneself, or every user for an admin", async () => {
  await withStore(async (store) => {
    const { as } = service(store);
    const root = await store.users.create("root@example.com", "x", ["admin"]);
    const jane = await store.users.create("jane@example.com", "x", []);
    assertEquals(await as(jane)("user status"), ["jane@example.com: no roles"]);
    assertEquals((await as(root)("user status")).sort(), [
      "jane@example.com: no roles",
      "root@example.com: admin",
    ]);
  });
});

Deno.test("bouncerserv user create: the account rules, and what to type", async () => {
  await withStore(async (store) => {
    const { as } = service(store);
    const root = await store.users.create("root@example.com", "x", ["admin"]);
    const run = as(root);
    assertEquals(
      (await run("user create -username joe@example.com"))[0],
      "-username and -password are needed.",
    );
    assertEquals((await run("user create joe@example.com"))[0], "Give every value with its flag.");
    assertEquals(await run("user create -username joe -password long-enough-1"), [
      "Not an email address.",
    ]);
    const short = await run("user create -username joe@example.com -password short");
    assertEquals(short.length, 1);
    assert(/10/.test(short[0]), short[0]);
    assertEquals(await run("user create -username root@example.com -password long-enough-1"), [
      "That email is already registered.",
    ]);
    assertEquals(
      await run("user create -username Joe@Example.com -password long-enough-1 -admin"),
      [
        "Created user joe@example.com.",
      ],
    );
    const joe = (await store.users.byEmail("joe@example.com"))!;
    assertEquals(joe.roles, ["admin"]);
    assert(joe.passwordHash.startsWith("$argon2"), "the password is hashed");
  });
});

Deno.test("bouncerserv user update: roles, a new password that ends the old sessions", async () => {
  await withStore(async (store) => {
    const { as, revoked } = service(store);
    const root = await store.users.create("root@example.com", "x", ["admin"]);
    const jane = await store.users.create("jane@example.com", "x", []);
    await store.sessions.create("session-hash", jane.id, Date.now() + 60_000);
    const run = as(root);
    assertEquals((await run("user update jane@example.com"))[0], "Say what to change.");
    assertEquals((await run("user update"))[0], "Name the user by email.");
    assertEquals(await run("user update nobody@example.com -admin true"), ["No such user."]);
    assertEquals(await run("user update root@example.com -admin false"), [
      "The last admin cannot give up the admin role.",
    ]);
    assertEquals(await run("user update jane@example.com -admin true"), [
      "Updated user jane@example.com.",
    ]);
    assertEquals((await store.users.byId(jane.id))!.roles, ["admin"]);
    assertEquals(revoked, [], "a role changes no login");
    assert(await store.sessions.get("session-hash"));
    assertEquals(await run("user update jane@example.com -password a-new-long-one"), [
      "Updated user jane@example.com.",
    ]);
    const now = (await store.users.byId(jane.id))!;
    assertEquals(await store.sessions.get("session-hash"), undefined, "the old sessions end");
    assertEquals(revoked, [{
      userId: jane.id,
      kind: "password",
      generation: await passwordGeneration(now.passwordHash),
    }]);
    // An admin logged in with an app token sets others' passwords, not their own.
    const byToken = as(root, "", undefined, false);
    assertEquals(await byToken("user update root@example.com -password stolen-token-1"), [
      "Setting your own password needs your current one: log in with it (not an app token or a certificate), or set it on the account page.",
    ]);
    assertEquals((await store.users.byId(root.id))!.passwordHash, "x");
    // Two admins now: root may step down.
    assertEquals(await run("user update root@example.com -admin false"), [
      "Updated user root@example.com.",
    ]);
  });
});

Deno.test("bouncerserv user update -enabled: suspends an account and brings it back", async () => {
  await withStore(async (store) => {
    const { as, revoked, fake } = service(store);
    const root = await store.users.create("root@example.com", "x", ["admin"]);
    const jane = await store.users.create("jane@example.com", "x", ["admin"]);
    await store.sessions.create("session-hash", jane.id, Date.now() + 60_000);
    const run = as(root);
    assertEquals(await run("user update root@example.com -enabled false"), [
      "You cannot suspend yourself.",
    ]);
    assertEquals(await run("user update jane@example.com -enabled false"), [
      "Updated user jane@example.com.",
    ]);
    assert((await store.users.byId(jane.id))!.suspended);
    assertEquals(await store.sessions.get("session-hash"), undefined, "her sessions end");
    assertEquals(revoked, [{ userId: jane.id, kind: "suspended" }]);
    assertEquals(fake.calls, [`suspend ${jane.id}`]);
    assertEquals((await run("user status")).sort(), [
      "jane@example.com: admin; suspended",
      "root@example.com: admin",
    ]);
    // Jane is an admin, but cannot log in: root is the last one who can.
    assertEquals(await run("user update root@example.com -admin false"), [
      "The last admin cannot give up the admin role.",
    ]);
    assertEquals(await run("user update jane@example.com -enabled true"), [
      "Updated user jane@example.com.",
    ]);
    assert(!(await store.users.byId(jane.id))!.suspended);
    assertEquals(fake.calls, [`suspend ${jane.id}`, `resume ${jane.id}`]);
  });
});

Deno.test("bouncerserv user delete: not the only user, not the last admin; hooks and revocation", async () => {
  await withStore(async (store) => {
    const { as, revoked, deleted } = service(store);
    const root = await store.users.create("root@example.com", "x", ["admin"]);
    const run = as(root);
    assertEquals(await run("user delete root@example.com"), ["You are the only user left."]);
    const jane = await store.users.create("jane@example.com", "x", []);
    assertEquals(await run("user delete root@example.com"), ["The last admin cannot be deleted."]);
    assertEquals((await run("user delete"))[0], "Name the user by email.");
    assertEquals(await run("user delete JANE@example.com"), ["Deleted user jane@example.com."]);
    assertEquals(await store.users.byId(jane.id), undefined);
    assertEquals(deleted, [jane.id]);
    assertEquals(revoked, [{ userId: jane.id, kind: "user" }]);
  });
});
