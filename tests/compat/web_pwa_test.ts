// deno-lint-ignore-file no-explicit-any -- the manifest is read field by field
/**
 * Convos 8.07 t/web-pwa.t ported: the page's web manifest and what it names are served, and so is
 * the service worker.
 */
import { compatServer, is, jsonIs, jsonLike, like, ok, statusIs } from "../support/compat.ts";
import denoJson from "../../deno.json" with { type: "json" };

Deno.test("web-pwa.t", async (t) => {
  const server = await compatServer();
  const api = server.client();
  try {
    const page = await api.get("/");
    statusIs("web-pwa.t:6", page, 200);
    const head = /<head>([\s\S]*)<\/head>/i.exec(String(page.body))?.[1] ?? "";
    const manifestHref = /<link rel="manifest" href="([^"]+)"/.exec(head)?.[1];
    ok("web-pwa.t:14", manifestHref, "a web manifest linked from the page");
    // LEFT OUT web-pwa.t:22 (html): Convos's page links to more than 30 icons and tiles; every
    // link of Parley's page is fetched by web_basic_test.ts.
    // LEFT OUT web-pwa.t:13, 27-35 (html): browserconfig.xml is Windows tiles' file, which
    // Parley's page does not link.

    await t.step("webmanifest", async () => {
      const manifestPath = manifestHref ?? "/manifest.webmanifest";
      const res = await api.get(manifestPath);
      // A manifest's URLs are read against its own URL, as a browser does: Parley's are relative,
      // so that they hold under a base URL's path too.
      const within = (u: string) => new URL(u, `http://parley${manifestPath}`).pathname;
      statusIs("web-pwa.t:14", res, 200);
      like("web-pwa.t:14", res.headers.get("content-type"), /manifest\+json|json/, "type: ");
      let json: any;
      try {
        json = typeof res.body === "string" ? JSON.parse(res.body) : res.body;
      } catch { /* checked below */ }
      ok("web-pwa.t:39", json && typeof json === "object", "the manifest to be JSON");
      const icons: any[] = [...(json?.icons ?? []), ...(json?.screenshots ?? [])];
      // web-pwa.t:44 adapted (design): Convos lists ten pictures; one scalable icon serves Parley.
      ok("web-pwa.t:44", icons.length > 0, "icons in the manifest");
      for (const icon of icons) {
        statusIs(`web-pwa.t:41 ${icon.src}`, await api.get(within(icon.src)), 200);
      }
      // web-pwa.t:43 adapted (design): Parley's own description, not Convos's.
      like("web-pwa.t:43", json?.description, /IRC/, "description: ");
      // The app the manifest starts is a page Parley serves.
      const start = within(json?.start_url ?? "/none");
      statusIs(`web-pwa.t:14 ${json?.start_url}`, await api.get(start), 200);
    });

    await t.step("service worker", async () => {
      // web-pwa.t:19-20: asked without logging in, on every page load of Convos's client. The
      // version is Parley's own: the client compares it with the page's to refresh its worker.
      const info = await api.get("/sw/info");
      statusIs("web-pwa.t:19", info, 200);
      jsonLike("web-pwa.t:19", info, "/mode", /^\w+$/);
      jsonIs("web-pwa.t:20", info, "/version", denoJson.version);
      // Parley's own service worker is the script /sw.js, which its client registers.
      const res = await api.get("/sw.js");
      statusIs("web-pwa.t:19", res, 200);
      like("web-pwa.t:19", res.headers.get("content-type"), /javascript/, "type: ");
      is("web-pwa.t:20", /^\s*</.test(String(res.body)), false, "not the page: ");
    });
  } finally {
    await server.close();
  }
});
