/**
 * Accounts in the real daemon: what only the process shows (a clean stop, data kept over a
 * restart, a log without secrets). The account operations themselves are tested in process in
 * tests/routes/accounts_test.ts.
 */
import { assert, assertEquals, assertStringIncludes } from "../support/assert.ts";
import { ApiClient } from "../support/api.ts";
import { startServer } from "../support/server.ts";

Deno.test("accounts: the daemon keeps accounts over a restart and logs no secret", async (t) => {
  const server = await startServer();
  const admin = new ApiClient(server.url);
  try {
    await admin.register("admin@example.com");
    assertEquals((await admin.post("/api/settings", { open_to_public: true })).status, 200);
    const user = new ApiClient(server.url);
    await user.register("new@example.com", "long enough pw");
    const changed = await user.post("/api/user/new@example.com", {
      password: "third password",
      current_password: "long enough pw",
    });
    assertEquals(changed.status, 200);

    await t.step("SIGTERM stops the daemon cleanly and the data survive a restart", async () => {
      assertEquals(await server.stop(), 0);
      assertStringIncludes(server.output(), "stopped");
      await server.restart();
      assertEquals((await admin.get("/api/user")).body.email, "admin@example.com");
      assertEquals((await admin.get("/api/settings")).body.open_to_public, true);
      assertEquals((await admin.get("/api/users")).body.users.length, 2);
      await new ApiClient(server.url).login("new@example.com", "third password");
    });

    await t.step("no password or secret appears in the log", () => {
      const out = server.output();
      for (const secret of ["correct horse battery", "long enough pw", "third password"]) {
        assert(!out.includes(secret), `log contains ${secret}`);
      }
      assertStringIncludes(out, "user registered");
    });
  } finally {
    await server.close();
  }
});
