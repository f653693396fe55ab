/**
 * Who becomes admin: the first person to register, exactly one of several racing, whether a
 * bot.json names the admin or a bot was created first; registration stays closed after.
 * In process, through `app.request()`.
 */
import { assertEquals } from "../support/assert.ts";
import { startApp } from "../support/app.ts";
import { botConfigSchema, ensureBot } from "../../irc/bot/bot.ts";

Deno.test("first admin: five concurrent first registrations make exactly one admin", async () => {
  const a = await startApp();
  try {
    {
      const results = await Promise.all(
        [1, 2, 3, 4, 5].map((i) =>
          a.post("/api/user/register", { email: `p${i}@example.com`, password: "long enough pw" })
        ),
      );
      const admins = results.filter((r) => r.status === 200 && r.body.roles.includes("admin"));
      assertEquals(admins.length, 1, JSON.stringify(results.map((r) => r.body)));
      for (const r of results.filter((r) => r.status !== 200)) {
        // Convos's answer to a registration without an invite (web-register-invite-only.t:57).
        assertEquals(r.status, 401);
        assertEquals(r.body.errors[0].message, "Convos registration is not open to public.");
      }
      const admin = await a.deps.store.users.withRole("admin");
      assertEquals(admin.length, 1);
      assertEquals((await a.deps.store.users.list(undefined, 10)).length, 1);
    }
  } finally {
    await a.close();
  }
});

Deno.test("first admin: a bot.json naming the admin does not open registration", async () => {
  const a = await startApp();
  try {
    await a.register("admin@example.com");
    const bot = await ensureBot(a.deps, botConfigSchema.parse({ email: "admin@example.com" }));
    assertEquals(bot.user.roles, ["admin", "bot"]);
    const res = await a.post("/api/user/register", {
      email: "stranger@example.com",
      password: "long enough pw",
    });
    assertEquals(res.status, 401);
    assertEquals(res.body.errors[0].message, "Convos registration is not open to public.");
    assertEquals(await a.deps.store.users.byEmail("stranger@example.com"), undefined);
  } finally {
    await a.close();
  }
});

Deno.test("first admin: a bot created first does not stop the first person becoming admin", async () => {
  const a = await startApp();
  try {
    await ensureBot(a.deps, botConfigSchema.parse({ email: "bot@example.com" }));
    const res = await a.post("/api/user/register", {
      email: "first@example.com",
      password: "long enough pw",
    });
    assertEquals(res.status, 200);
    assertEquals(res.body.roles, ["admin"]);
    const second = await a.post("/api/user/register", {
      email: "second@example.com",
      password: "long enough pw",
    });
    assertEquals(second.status, 401);
  } finally {
    await a.close();
  }
});
