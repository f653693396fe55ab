/**
 * Convos 8.07 t/web-pwa.t ported: the service worker's info.
 *
 * LEFT OUT web-pwa.t:6-17, 24-45 (html): the front page's icons, browserconfig and web manifest.
 */
import { compatServer, jsonIs, jsonLike, statusIs } from "../support/compat.ts";
import denoJson from "../../deno.json" with { type: "json" };

Deno.test("web-pwa.t", async () => {
  const server = await compatServer();
  const api = server.client();
  try {
    // web-pwa.t:19-20: asked without logging in, on every page load of Convos's client. The
    // version is Parley's own: the client compares it with the page's to refresh its worker.
    const res = await api.get("/sw/info");
    statusIs("web-pwa.t:19", res, 200);
    jsonLike("web-pwa.t:19", res, "/mode", /^\w+$/);
    jsonIs("web-pwa.t:20", res, "/version", denoJson.version);
  } finally {
    await server.close();
  }
});
