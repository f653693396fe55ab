import { assertEquals } from "../support/assert.ts";
import { ApiClient } from "../support/api.ts";
import { startServer } from "../support/server.ts";
import denoJson from "../../deno.json" with { type: "json" };
import { versionNumber } from "../../updates/check.ts";

const RUNNING = versionNumber(denoJson.version)!;

Deno.test("checkForUpdates: off, offline, and a newer version from the update URL", async (t) => {
  let asked = 0;
  const ac = new AbortController();
  const remote = Deno.serve(
    { hostname: "127.0.0.1", port: 0, signal: ac.signal, onListen() {} },
    () => {
      asked++;
      return Response.json({ version: "9.8.7" });
    },
  );
  const servers = [
    await startServer(),
    await startServer({ env: { PARLEY_UPDATE_URL: "http://127.0.0.1:1/version" } }),
    await startServer({
      env: { PARLEY_UPDATE_URL: `http://127.0.0.1:${remote.addr.port}/version.json` },
    }),
  ];
  try {
    const [off, offline, online] = await Promise.all(servers.map(async (s) => {
      const api = new ApiClient(s.url);
      await api.register("admin@example.com");
      return api;
    }));
    await t.step("needs a login", async () => {
      const res = await new ApiClient(servers[0].url).get("/api/check-for-updates");
      assertEquals(res.status, 401);
    });
    await t.step("off: available is running", async () => {
      const res = await off.get("/api/check-for-updates");
      assertEquals(res.body, { available: RUNNING, running: RUNNING });
    });
    await t.step("offline: available is running", async () => {
      const res = await offline.get("/api/check-for-updates.json");
      assertEquals(res.status, 200);
      assertEquals(res.body, { available: RUNNING, running: RUNNING });
    });
    await t.step("online: the newer version, asked once and cached", async () => {
      const res = await online.get("/api/check-for-updates");
      assertEquals(res.body, { available: 9.0807, running: RUNNING });
      await online.get("/api/check-for-updates");
      assertEquals(asked, 1);
    });
  } finally {
    await Promise.all(servers.map((s) => s.close()));
    ac.abort();
    await remote.finished;
  }
});
