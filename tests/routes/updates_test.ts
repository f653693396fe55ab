/** checkForUpdates in process (tests/support/app.ts), against an update URL on loopback. */
import { assertEquals } from "../support/assert.ts";
import { startApp } from "../support/app.ts";
import type { ApiClient } from "../support/api.ts";

Deno.test("checkForUpdates: a newer version from the update URL, and offline", async (t) => {
  let asked = 0;
  const updates = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, () => {
    asked++;
    return Response.json({ version: "9.8.7" });
  });
  const updateUrl = `http://127.0.0.1:${updates.addr.port}/latest`;
  /** Runs `fn` with a registered client of an app whose update URL is `url`. */
  const withApp = async (url: string, fn: (c: ApiClient) => Promise<void>) => {
    const app = await startApp({ PARLEY_UPDATE_URL: url });
    try {
      const client = app.client();
      await client.register("admin@example.com");
      await fn(client);
    } finally {
      await app.close();
    }
  };
  const a = await startApp({ PARLEY_UPDATE_URL: updateUrl });
  try {
    const client = a.client();
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
      await withApp("", async (c) => {
        const res = await c.get("/api/check-for-updates");
        assertEquals(res.body, { available: 0.01, running: 0.01 });
        assertEquals(asked, 1);
      });
    });

    await t.step("with the update URL down, available is the running version", async () => {
      await updates.shutdown();
      await withApp(updateUrl, async (c) => {
        const res = await c.get("/api/check-for-updates");
        assertEquals(res.body, { available: 0.01, running: 0.01 });
      });
    });
  } finally {
    await a.close();
    await updates.shutdown();
  }
});
