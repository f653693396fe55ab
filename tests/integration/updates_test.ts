import { assertEquals } from "../support/assert.ts";
import { ApiClient } from "../support/api.ts";
import { startServer } from "../support/server.ts";

Deno.test("checkForUpdates: a newer version from the update URL, and offline", async (t) => {
  let asked = 0;
  const updates = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, () => {
    asked++;
    return Response.json({ version: "9.8.7" });
  });
  const server = await startServer({
    env: { PARLEY_UPDATE_URL: `http://127.0.0.1:${updates.addr.port}/latest` },
  });
  try {
    const client = new ApiClient(server.url);
    await t.step("needs a session", async () => {
      assertEquals((await client.get("/api/check-for-updates")).status, 401);
      assertEquals(asked, 0);
    });

    await client.register("admin@example.com");
    await t.step("answers the newer version, asking the URL once", async () => {
      const res = await client.get("/api/check-for-updates");
      assertEquals(res.status, 200);
      assertEquals(res.body, { available: 9.0807, running: 0.01 });
      const again = await client.get("/api/check-for-updates.json");
      assertEquals(again.body.available, 9.0807);
      assertEquals(asked, 1);
    });

    await t.step("with the check off, available is the running version", async () => {
      server.env.PARLEY_UPDATE_URL = "";
      await server.restart();
      await client.login("admin@example.com");
      const res = await client.get("/api/check-for-updates");
      assertEquals(res.body, { available: 0.01, running: 0.01 });
      assertEquals(asked, 1);
    });

    await t.step("with the update URL down, available is the running version", async () => {
      server.env.PARLEY_UPDATE_URL = `http://127.0.0.1:${updates.addr.port}/latest`;
      await updates.shutdown();
      await server.restart();
      await client.login("admin@example.com");
      const res = await client.get("/api/check-for-updates");
      assertEquals(res.body, { available: 0.01, running: 0.01 });
    });
  } finally {
    await server.close();
    await updates.shutdown();
  }
});
