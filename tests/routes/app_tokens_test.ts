/**
 * App tokens through the API (both backends: the route tests also run on PostgreSQL): made and
 * shown once, listed without the token, revoked; each user sees only their own; bad input gets
 * the API's error body.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { startApp } from "../support/app.ts";
import { adminAndUser } from "../support/api.ts";
import { authenticate } from "../../bouncer/auth.ts";
import { MAX_APP_TOKENS } from "../../store/app_tokens.ts";
import { RECENT_PASSWORD_MS } from "../../http/session.ts";
import { ManualClock } from "../support/manual_clock.ts";

Deno.test("app tokens: make, list, log in with, revoke", async () => {
  const a = await startApp();
  try {
    const { admin, user: bob } = await adminAndUser(a);
    const made = await admin.post("/api/tokens", { name: " phone " });
    assertEquals(made.status, 201);
    assertEquals(made.body.name, "phone");
    assert(made.body.token.startsWith("parley-") && made.body.token.length > 30);
    assertEquals(made.body.last_used, undefined);

    const list = await admin.get("/api/tokens");
    assertEquals(list.body.tokens.length, 1);
    assertEquals(list.body.tokens[0].id, made.body.id);
    assert(!JSON.stringify(list.body).includes(made.body.token), "never shown again");

    // The token logs an IRC client in instead of the password, and its use is recorded.
    const deps = { store: a.deps.store, loginThrottle: a.deps.loginThrottle };
    const ok = await authenticate(deps, "admin@example.com", made.body.token, "10.0.0.1");
    assert(typeof ok === "object", String(ok));
    const used = await admin.get("/api/tokens");
    assert(used.body.tokens[0].last_used, "last use recorded");
    assertEquals(
      await authenticate(deps, "admin@example.com", made.body.token + "x", "10.0.0.1"),
      "invalid",
    );

    // Someone else's token: answered as a missing one; bad input: the API's error body.
    assertEquals((await bob.delete(`/api/tokens/${made.body.id}`)).status, 404);
    assertEquals((await bob.get("/api/tokens")).body.tokens, []);
    for (
      const [body, path] of [[{}, "/body/name"], [{ name: "" }, "/body/name"], [
        { name: 3 },
        "/body/name",
      ], [{ name: "x".repeat(65) }, "/body/name"]] as const
    ) {
      const bad = await admin.post("/api/tokens", body);
      assertEquals([bad.status, bad.body.errors?.[0]?.path], [400, path], JSON.stringify(body));
    }
    const badId = await admin.delete("/api/tokens/abc");
    assertEquals([badId.status, badId.body.errors[0].path], [400, "/params/id"]);

    const gone = await admin.delete(`/api/tokens/${made.body.id}`);
    assertEquals(gone.status, 200);
    assertEquals((await admin.get("/api/tokens")).body.tokens, []);
    assertEquals((await admin.delete(`/api/tokens/${made.body.id}`)).status, 404);
    assertEquals(
      await authenticate(deps, "admin@example.com", made.body.token, "10.0.0.1"),
      "invalid",
      "a revoked token no longer logs in",
    );
    const anonymous = await a.client().get("/api/tokens");
    assertEquals(anonymous.status, 401);

    // Bounded per user: past the bound, the API's error body. (bob's session was opened by his
    // invite link, not by his password: he gives it.)
    const current_password = "correct horse battery";
    for (let i = 0; i < MAX_APP_TOKENS; i++) {
      assertEquals(
        (await bob.post("/api/tokens", { name: `t${i}`, current_password })).status,
        201,
      );
    }
    const full = await bob.post("/api/tokens", { name: "one more", current_password });
    assertEquals([full.status, full.body.errors], [400, [{
      message: `At most ${MAX_APP_TOKENS} app tokens: revoke one no longer used.`,
      path: "/body/name",
    }]]);
  } finally {
    await a.close();
  }
});

Deno.test("app tokens: a session not opened with the password just now must give it", async () => {
  const a = await startApp();
  const clock = new ManualClock();
  clock.advance(Date.now());
  a.deps.wallClock = clock;
  try {
    const { admin } = await adminAndUser(a);
    // Registered with the password a moment ago: no need to give it again.
    assertEquals((await admin.post("/api/tokens", { name: "fresh" })).status, 201);
    // Minutes later (a stolen session): a token would outlive the victim's new password.
    clock.advance(RECENT_PASSWORD_MS + 1000);
    const missing = await admin.post("/api/tokens", { name: "thief" });
    assertEquals([missing.status, missing.body.errors], [400, [{
      message: "Enter your current password to make an app token.",
      path: "/body/current_password",
    }]]);
    const wrong = await admin.post("/api/tokens", { name: "thief", current_password: "guess" });
    assertEquals([wrong.status, wrong.body.errors[0]?.path], [400, "/body/current_password"]);
    assertEquals((await admin.get("/api/tokens")).body.tokens.length, 1, "none made");
    const given = await admin.post("/api/tokens", {
      name: "owner",
      current_password: "correct horse battery",
    });
    assertEquals(given.status, 201);
  } finally {
    await a.close();
  }
});
