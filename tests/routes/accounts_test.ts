/**
 * The account operations in process (tests/support/app.ts): registration, invites, roles,
 * validation paths, throttling, auth-before-input, CSRF and profiles. Every answer is also checked
 * against the API document. What needs the daemon (restart, its log) is in
 * tests/integration/accounts_test.ts.
 */
import { assert, assertEquals, assertStringIncludes } from "../support/assert.ts";
import { startApp } from "../support/app.ts";
import { ManualClock } from "../support/manual_clock.ts";
import { LOGIN_LIMITS, LoginThrottle } from "../../http/throttle.ts";
import { RECENT_PASSWORD_MS } from "../../http/session.ts";

/** A clock for the app's sessions, at the real time until a test moves it on. */
function sessionClock(): ManualClock {
  const clock = new ManualClock();
  clock.advance(Date.now());
  return clock;
}

Deno.test("accounts: registration, invites, roles and sessions", async (t) => {
  const a = await startApp();
  const clock = sessionClock();
  a.deps.wallClock = clock;
  const admin = a.client();
  try {
    await t.step("the first user becomes admin", async () => {
      const first = await admin.register("Admin@Example.com");
      assertEquals(first.email, "admin@example.com");
      assertEquals(first.roles, ["admin"]);
      assertEquals(first.unread, 0);
      assert(typeof first.csrf === "string" && first.csrf.length > 20);
      assert(!JSON.stringify(first).includes("argon2"), "no password hash in the response");
    });

    await t.step("a second registration needs an invite", async () => {
      const res = await a.client().post("/api/user/register", {
        email: "x@example.com",
        password: "long enough pw",
      });
      // Convos's answer (web-register-invite-only.t:57-58).
      assertEquals(res.status, 401);
      assertEquals(res.body.errors[0].message, "Convos registration is not open to public.");
    });

    let invite!: URL;
    await t.step("an admin's invite lets a new user register", async () => {
      const res = await admin.post("/api/user/new@example.com/invite");
      assertEquals(res.status, 200);
      assertEquals(res.body.existing, false);
      invite = new URL(res.body.url);
      assertEquals(invite.pathname, "/register");
      assertEquals(invite.searchParams.get("email"), "new@example.com");
      assert(Date.parse(res.body.expires) > Date.now() + 23 * 3600_000);
    });

    await t.step("a tampered or expired invite is refused", async () => {
      const p = invite.searchParams;
      const anon = a.client();
      const base = { email: "new@example.com", password: "long enough pw", exp: p.get("exp")! };
      const tampered = await anon.post("/api/user/register", {
        ...base,
        // Another first character (replacing it with a fixed one failed 1 run in 64).
        token: p.get("token")!.replace(/^./, (c) => c === "x" ? "y" : "x"),
      });
      // Convos answers every bad invite alike (web-register-invite-only.t:61-62).
      assertEquals(tampered.status, 401);
      assertEquals(
        tampered.body.errors[0].message,
        "Invalid token. You have to ask your Convos admin for a new link.",
      );
      const otherEmail = await anon.post("/api/user/register", {
        ...base,
        email: "other@example.com",
        token: p.get("token")!,
      });
      assertEquals(otherEmail.status, 401);
      const longer = await anon.post("/api/user/register", {
        ...base,
        exp: String(Number(p.get("exp")) + 3600),
        token: p.get("token")!,
      });
      assertEquals(longer.status, 401);
      const expired = await anon.post("/api/user/register", {
        ...base,
        exp: "1000000000",
        token: p.get("token")!,
      });
      assertEquals(expired.status, 401);
    });

    const user = a.client();
    await t.step("the valid invite registers an ordinary user", async () => {
      const p = invite.searchParams;
      const body = await user.register("new@example.com", "first password", {
        exp: p.get("exp")!,
        token: p.get("token")!,
      });
      assertEquals(body.roles, []);
      assertEquals((await user.get("/api/user")).status, 200);
    });

    await t.step(
      "an invite for an existing user resets the password and ends old sessions",
      async () => {
        const res = await admin.post("/api/user/new@example.com/invite.json");
        assertEquals(res.body.existing, true);
        const p = new URL(res.body.url).searchParams;
        const fresh = a.client();
        await fresh.register("new@example.com", "second password", {
          exp: p.get("exp")!,
          token: p.get("token")!,
        });
        assertEquals((await user.get("/api/user")).status, 401, "the old session ended");
        assertEquals(
          (await a.client().post("/api/user/login", {
            email: "new@example.com",
            password: "first password",
          })).status,
          400,
        );
        await user.login("new@example.com", "second password");
        const reuse = await a.client().post("/api/user/register", {
          email: "new@example.com",
          password: "third password",
          exp: p.get("exp")!,
          token: p.get("token")!,
        });
        assertEquals(reuse.status, 401, "a used invite cannot be used again");
      },
    );

    await t.step("non-admins get 403 on admin operations", async () => {
      const calls: [string, string, unknown?][] = [
        ["GET", "/api/settings"],
        ["POST", "/api/settings", { contact: "mailto:x@example.com" }],
        ["GET", "/api/users"],
        ["POST", "/api/user/someone@example.com/invite"],
        ["POST", "/api/connection-profiles", { url: "irc://irc.example.org" }],
        ["DELETE", "/api/connection-profiles/irc-example"],
      ];
      for (const [method, path, body] of calls) {
        const res = await user.request(method, path, body);
        assertEquals(res.status, 403, `${method} ${path}`);
        assertEquals(typeof res.body.errors[0].message, "string");
      }
    });

    await t.step("a user cannot grant themselves roles nor change someone else", async () => {
      // Convos ignores a non-admin's roles rather than refusing (web-users.t:46).
      const res = await user.post("/api/user/new@example.com", { roles: ["admin"] });
      assertEquals(res.status, 200);
      assertEquals((await user.get("/api/user")).body.roles, []);
      const other = await user.post("/api/user/admin@example.com", { highlight_keywords: ["x"] });
      assertEquals(other.status, 403);
      const del = await user.delete("/api/user/admin@example.com");
      assertEquals(del.status, 403);
    });

    await t.step("a user updates their own highlight keywords and password", async () => {
      const res = await user.post("/api/user/new@example.com", {
        highlight_keywords: ["deploy", "parley"],
      });
      assertEquals(res.status, 200);
      assertEquals(res.body.highlight_keywords, ["deploy", "parley"]);
      const pw = await user.post("/api/user/new@example.com", {
        password: "third password",
        current_password: "second password",
      });
      assertEquals(pw.status, 200);
      assertEquals((await user.get("/api/user")).status, 200, "the caller stays logged in");
      await a.client().login("new@example.com", "third password");
    });

    await t.step("a new password of one's own needs the current one", async () => {
      // Past the minutes after giving it in which a session may do without.
      clock.advance(RECENT_PASSWORD_MS + 1000);
      const missing = await user.post("/api/user/new@example.com", { password: "stolen session" });
      assertEquals(missing.status, 400);
      assertEquals(missing.body.errors[0], {
        message: "Enter your current password to set a new one.",
        path: "/body/current_password",
      });
      const blank = await user.post("/api/user/new@example.com", {
        password: "stolen session",
        current_password: "",
      });
      assertEquals(blank.status, 400);
      assertEquals(blank.body.errors[0].message, "Enter your current password to set a new one.");
      // Nothing changed: the old password still logs in, and the caller's session still works.
      await a.client().login("new@example.com", "third password");
      assertEquals((await user.get("/api/user")).status, 200);
    });

    await t.step("current_password must match", async () => {
      const wrong = await user.post("/api/user/new@example.com", {
        password: "fourth password",
        current_password: "not my password",
      });
      assertEquals(wrong.status, 400);
      assertEquals(wrong.body.errors[0].path, "/body/current_password");
      await a.client().login("new@example.com", "third password");
      const right = await user.post("/api/user/new@example.com", {
        password: "fourth password",
        current_password: "third password",
      });
      assertEquals(right.status, 200);
      await a.client().login("new@example.com", "fourth password");
      // Back to the password the later steps use.
      await user.post("/api/user/new@example.com", {
        password: "third password",
        current_password: "fourth password",
      });
    });

    await t.step("an admin sets another user's password without knowing theirs", async () => {
      const res = await admin.post("/api/user/new@example.com", { password: "set by admin" });
      assertEquals(res.status, 200);
      await a.client().login("new@example.com", "set by admin");
      // The user's own sessions ended with it: they log in again with the new password.
      assertEquals((await user.get("/api/user")).status, 401);
      await user.login("new@example.com", "set by admin");
      await user.post("/api/user/new@example.com", {
        password: "third password",
        current_password: "set by admin",
      });
    });

    await t.step("an admin grants and removes roles, but the last admin stays admin", async () => {
      const res = await admin.post("/api/user/new@example.com", { roles: ["bot"] });
      assertEquals(res.status, 200);
      assertEquals(res.body.roles, ["bot"]);
      const bad = await admin.post("/api/user/new@example.com", { roles: ["emperor"] });
      assertEquals(bad.status, 400);
      assertEquals(bad.body.errors[0].path, "/body/roles/0");
      const last = await admin.post("/api/user/admin@example.com", { roles: [] });
      assertEquals(last.status, 400);
      assertEquals(last.body.errors[0].path, "/body/roles");
      assertEquals((await admin.delete("/api/user/admin@example.com")).status, 400);
    });

    await t.step("getUsers lists users in pages for admins", async () => {
      for (const name of ["a", "b", "c"]) {
        const res = await admin.post(`/api/user/${name}@example.com/invite`);
        const p = new URL(res.body.url).searchParams;
        await a.client().register(`${name}@example.com`, "long enough pw", {
          exp: p.get("exp")!,
          token: p.get("token")!,
        });
      }
      const page1 = await admin.get("/api/users?limit=2");
      assertEquals(page1.body.users.map((u: { email: string }) => u.email), [
        "a@example.com",
        "admin@example.com",
      ]);
      const page2 = await admin.get(
        `/api/users?limit=2&after=${encodeURIComponent(page1.body.after)}`,
      );
      assertEquals(page2.body.users.map((u: { email: string }) => u.email), [
        "b@example.com",
        "c@example.com",
      ]);
      const all = await admin.get("/api/users");
      assertEquals(all.body.users.length, 5);
      assertEquals(all.body.after, undefined);
    });

    await t.step("a deleted user's session stops working", async () => {
      const res = await admin.delete("/api/user/new@example.com");
      assertEquals(res.status, 200);
      assertEquals((await user.get("/api/user")).status, 401);
      assertEquals((await admin.delete("/api/user/new@example.com")).status, 404);
    });

    await t.step("logout needs the csrf value", async () => {
      const c = a.client();
      const me = await c.login("a@example.com", "long enough pw");
      const missing = await c.get("/api/user/logout");
      assertEquals(missing.status, 400);
      assertEquals(missing.body.errors[0].path, "/query/csrf");
      const wrong = await c.get("/api/user/logout?csrf=nope");
      assertEquals(wrong.status, 400);
      assertEquals((await c.get("/api/user")).status, 200);
      const ok = await c.get(`/api/user/logout?csrf=${encodeURIComponent(me.csrf)}`);
      assertEquals(ok.status, 302);
      assertEquals((await c.get("/api/user")).status, 401);
    });

    await t.step("open_to_public lets anyone register", async () => {
      const set = await admin.post("/api/settings", { open_to_public: true });
      assertEquals(set.body.open_to_public, true);
      const c = a.client();
      const body = await c.register("public@example.com");
      assertEquals(body.roles, []);
      const again = await a.client().post("/api/user/register", {
        email: "PUBLIC@example.com",
        password: "long enough pw",
      });
      assertEquals(again.status, 400);
      assertEquals(again.body.errors[0].path, "/body/email");
    });
  } finally {
    await a.close();
  }
});

Deno.test("accounts: login throttling answers 429 with Retry-After after five failures", async () => {
  const a = await startApp();
  try {
    const c = a.client();
    await c.register("admin@example.com");
    const anon = a.client();
    for (let i = 0; i < 5; i++) {
      const res = await anon.post("/api/user/login", {
        email: "admin@example.com",
        password: `wrong ${i}`,
      });
      assertEquals(res.status, 400);
    }
    // Past the free tries, this email waits from this address (tests/integration/login_throttle_test.ts).
    const blocked = await anon.post("/api/user/login", {
      email: "admin@example.com",
      password: "correct horse battery",
    });
    assertEquals(blocked.status, 429);
    assertEquals(typeof blocked.body.errors[0].message, "string");
    assert(Number(blocked.headers.get("retry-after")) >= 1);
  } finally {
    await a.close();
  }
});

Deno.test("accounts: a new password needs the current one unless given in the last 10 minutes", async (t) => {
  const a = await startApp();
  const clock = sessionClock();
  a.deps.wallClock = clock;
  const me = a.client();
  const set = (password: string, current_password?: string) =>
    me.post("/api/user/me@example.com", { password, current_password });
  try {
    await t.step("right after registering or logging in, as Convos's client does", async () => {
      await me.register("me@example.com", "first password");
      assertEquals((await set("second password")).status, 200);
      await me.login("me@example.com", "second password");
      clock.advance(RECENT_PASSWORD_MS);
      assertEquals((await set("third password")).status, 200);
    });

    await t.step("a session whose password is older is asked for it", async () => {
      // The change above kept the time the password was last given, not the change's.
      clock.advance(1);
      const old = await set("fourth password");
      assertEquals(old.status, 400);
      assertEquals(old.body.errors[0], {
        message: "Enter your current password to set a new one.",
        path: "/body/current_password",
      });
      await a.client().login("me@example.com", "third password");
      assertEquals((await set("fourth password", "third password")).status, 200);
      // Giving it makes the session fresh again.
      clock.advance(RECENT_PASSWORD_MS - 1000);
      assertEquals((await set("fifth password")).status, 200);
    });

    await t.step("a session from an invite link is asked for it at once", async () => {
      const admin = a.client();
      await admin.login("me@example.com", "fifth password");
      const res = await admin.post("/api/user/other@example.com/invite");
      const p = new URL(res.body.url).searchParams;
      const other = a.client();
      await other.register("other@example.com", "long enough pw", {
        exp: p.get("exp")!,
        token: p.get("token")!,
      });
      const asked = await other.post("/api/user/other@example.com", { password: "new password" });
      assertEquals(asked.status, 400);
      assertEquals(asked.body.errors[0].path, "/body/current_password");
    });
  } finally {
    await a.close();
  }
});

Deno.test("accounts: guesses sent together are counted before any is verified", async () => {
  const a = await startApp();
  // The free tries of the real limits, and a first wait that no slow machine outlasts: the
  // guesses that get verified are those begun before any other was settled.
  a.deps.loginThrottle = new LoginThrottle({ ...LOGIN_LIMITS, baseDelayMs: 3_600_000 });
  const server = await a.listen();
  try {
    await a.register("admin@example.com");
    const guesses = await Promise.all(Array.from({ length: 60 }, async (_, i) => {
      const res = await fetch(`http://127.0.0.1:${server.port}/api/user/login`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ email: "admin@example.com", password: `guess ${i}` }),
      });
      await res.body?.cancel();
      return res.status;
    }));
    assertEquals(guesses.filter((s) => s === 400).length, LOGIN_LIMITS.free, `${guesses}`);
    assertEquals(guesses.filter((s) => s === 429).length, 60 - LOGIN_LIMITS.free);
  } finally {
    await server.stop();
    await a.close();
  }
});

Deno.test("accounts: every constraint is a 400 with the field's path", async () => {
  const a = await startApp();
  try {
    const anon = a.client();
    const cases: [unknown, string][] = [
      [{ email: "not-an-email", password: "long enough pw" }, "/body/email"],
      [{ email: "a@example.com", password: "short" }, "/body/password"],
      [{ email: "a@example.com" }, "/body/password"],
      [{ password: "long enough pw" }, "/body/email"],
      [{ email: 12, password: "long enough pw" }, "/body/email"],
    ];
    for (const [body, path] of cases) {
      const res = await anon.post("/api/user/register", body);
      assertEquals(res.status, 400, JSON.stringify(body));
      assertEquals(res.body.errors[0].path, path, JSON.stringify(body));
    }
    const malformed = await anon.request("POST", "/api/user/register", "{not json", {
      "content-type": "application/json",
    });
    assertEquals(malformed.status, 400);
    assertEquals(malformed.body.errors[0].path, "/body");

    const admin = a.client();
    await admin.register("admin@example.com");
    const adminCases: [string, unknown, string][] = [
      ["/api/settings", { contact: "ab" }, "/body/contact"],
      ["/api/settings", { default_connection: "http://example.com" }, "/body/default_connection"],
      ["/api/settings", { open_to_public: "yes" }, "/body/open_to_public"],
      [
        "/api/connection-profiles",
        { url: "irc://irc.example.org", max_bulk_message_size: 0 },
        "/body/max_bulk_message_size",
      ],
      [
        "/api/connection-profiles",
        { url: "irc://irc.example.org", max_bulk_message_size: 33 },
        "/body/max_bulk_message_size",
      ],
      [
        "/api/connection-profiles",
        { url: "irc://irc.example.org", max_message_length: 31 },
        "/body/max_message_length",
      ],
      [
        "/api/connection-profiles",
        { url: "irc://irc.example.org", max_message_length: 2049 },
        "/body/max_message_length",
      ],
      ["/api/connection-profiles", { url: "https://irc.example.org" }, "/body/url"],
      ["/api/connection-profiles", {}, "/body/url"],
      ["/api/user/admin@example.com", { password: "short" }, "/body/password"],
      ["/api/user/admin@example.com", { highlight_keywords: "x" }, "/body/highlight_keywords"],
      ["/api/user/not-an-email/invite", {}, "/params/email"],
    ];
    for (const [path, body, pointer] of adminCases) {
      const res = await admin.post(path, body);
      assertEquals(res.status, 400, `${path} ${JSON.stringify(body)}`);
      assertEquals(res.body.errors[0].path, pointer, `${path} ${JSON.stringify(body)}`);
    }
    assertEquals(
      (await admin.get("/api/settings")).body.contact,
      "mailto:root@localhost",
      "nothing was saved",
    );
  } finally {
    await a.close();
  }
});

Deno.test("accounts: the HTTP surface (auth first, suffixes, errors, CSRF, profiles)", async (t) => {
  const a = await startApp();
  try {
    const anon = a.client();
    await t.step("anonymous callers get 401 whatever the body", async () => {
      for (
        const [method, path, body] of [
          ["GET", "/api/user"],
          ["POST", "/api/user/x@example.com", { password: "x" }],
          ["POST", "/api/settings", { contact: "a" }],
          ["GET", "/api/users"],
          ["GET", "/api/connection-profiles"],
          ["GET", "/api/user/logout?csrf=x"],
        ] as [string, string, unknown?][]
      ) {
        const res = await anon.request(method, path, body);
        assertEquals(res.status, 401, `${method} ${path}`);
        assertEquals(res.body.errors[0].path, "/");
      }
    });

    await t.step("GET /api returns the OpenAPI document", async () => {
      const res = await anon.get("/api");
      assertEquals(res.status, 200);
      assertEquals(res.body.swagger, "2.0");
      assertEquals(res.body.basePath, "/api");
      assert(res.body.paths["/user/login"].post.operationId === "loginUser");
    });

    const admin = a.client();
    await admin.register("admin@example.com");

    await t.step("every operation answers with .json appended", async () => {
      const a = await admin.get("/api/user.json");
      assertEquals(a.status, 200);
      assertEquals(a.body.email, "admin@example.com");
      assertEquals((await admin.get("/api/settings.json")).status, 200);
      assertEquals((await admin.get("/api/connection-profiles.json")).status, 200);
    });

    await t.step("an unknown operation is a 501 with the error body", async () => {
      const res = await admin.get("/api/no-such-thing");
      assertEquals(res.status, 501);
      assertEquals(res.body.errors[0].path, "/");
    });

    await t.step("a cross-site state change with the cookie is refused", async () => {
      const res = await admin.post("/api/settings", { organization_name: "Evil" }, {
        origin: "https://evil.example",
      });
      assertEquals(res.status, 403);
      const fetchSite = await admin.post("/api/settings", { organization_name: "Evil" }, {
        "sec-fetch-site": "cross-site",
      });
      assertEquals(fetchSite.status, 403);
      const same = await admin.post("/api/settings", { organization_name: "Home" }, {
        origin: a.deps.config.baseUrl.origin,
      });
      assertEquals(same.status, 200);
      assertEquals(same.body.organization_name, "Home");
    });

    await t.step("the session cookie is HttpOnly and SameSite=Lax", async () => {
      const res = await a.request("/api/user/login", {
        method: "POST",
        body: JSON.stringify({ email: "admin@example.com", password: "correct horse battery" }),
        headers: { "content-type": "application/json" },
      });
      const cookie = res.headers.getSetCookie().find((c) => c.startsWith("parley="))!;
      assertStringIncludes(cookie, "HttpOnly");
      assertStringIncludes(cookie, "SameSite=Lax");
    });

    await t.step("settings report disk usage", async () => {
      const res = await admin.get("/api/settings");
      const du = res.body.disk_usage;
      for (
        const k of [
          "block_size",
          "blocks_free",
          "blocks_total",
          "blocks_used",
          "inodes_free",
          "inodes_total",
        ]
      ) {
        assert(Number.isInteger(du[k]), k);
      }
      assert(du.blocks_total > 0);
    });

    await t.step("connection profiles are saved, listed, updated and removed", async () => {
      const saved = await admin.post("/api/connection-profiles", {
        url: "ircs://irc.example.org:6697",
        is_default: true,
        max_message_length: 400,
        webirc_password: "s3cret-webirc",
      });
      assertEquals(saved.status, 200);
      assertEquals(saved.body.id, "irc-example");
      assertEquals(saved.body.max_message_length, 400);
      assertEquals(saved.body.max_bulk_message_size, 3);
      const updated = await admin.post("/api/connection-profiles", {
        url: "ircs://irc.example.org:6697",
        max_bulk_message_size: 5,
      });
      assertEquals(updated.body.max_message_length, 400, "unchanged fields are kept");
      assertEquals(updated.body.max_bulk_message_size, 5);
      await admin.post("/api/connection-profiles", {
        url: "irc://127.0.0.1:6667",
        is_default: true,
      });
      // The server's first default connection is a profile too (as in Convos), listed by id.
      const list = await admin.get("/api/connection-profiles");
      const ids = list.body.profiles.map((p: { id: string }) => p.id);
      assertEquals(ids.filter((id: string) => id !== "irc-libera"), [
        "irc-example",
        "irc-localhost",
      ]);
      assertEquals(
        list.body.profiles.filter((p: { is_default: boolean }) => p.is_default)
          .map((p: { id: string }) => p.id),
        ["irc-localhost"],
      );
      assertEquals(
        (await admin.delete("/api/connection-profiles/irc-localhost")).body.errors[0].message,
        "You cannot delete the default connection.",
      );
      assert(
        !JSON.stringify(list.body).includes("s3cret-webirc"),
        "the WEBIRC password is never returned",
      );
      assertEquals((await admin.delete("/api/connection-profiles/irc-example")).status, 200);
      assertEquals((await admin.delete("/api/connection-profiles/irc-example")).status, 404);
      assertEquals(
        (await admin.get("/api/connection-profiles")).body.profiles.length,
        ids.length - 1,
      );
    });
  } finally {
    await a.close();
  }
});

Deno.test("accounts: one invite link sent five times at once: one account, four refusals", async () => {
  const a = await startApp();
  try {
    const admin = a.client();
    await admin.register("root@example.com");
    const res = await admin.post("/api/user/twice@example.com/invite");
    const p = new URL(res.body.url).searchParams;
    const tries = await Promise.all(
      Array.from({ length: 5 }, () =>
        a.client().post("/api/user/register", {
          email: "twice@example.com",
          password: "long enough pw",
          exp: p.get("exp")!,
          token: p.get("token")!,
        })),
    );
    // Not a 500 for the account the first made meanwhile: the link is used.
    assertEquals(tries.map((r) => r.status).sort(), [200, 401, 401, 401, 401]);
  } finally {
    await a.close();
  }
});
