import { assert, assertEquals, assertStringIncludes } from "../support/assert.ts";
import { startServer } from "../support/server.ts";

Deno.test("web client serving: app page, assets, caching, compression, translations", async (t) => {
  const server = await startServer();
  const get = (path: string, headers: Record<string, string> = {}) =>
    fetch(server.url + path, { headers });
  try {
    await t.step("every client route serves the app page under a strict policy", async () => {
      for (
        const path of [
          "/",
          "/login",
          "/register?email=a%40b.c",
          "/chat/irc-x/%23y",
          "/settings/account",
        ]
      ) {
        const res = await get(path);
        assertEquals(res.status, 200, path);
        assertEquals(res.headers.get("content-type"), "text/html; charset=utf-8");
        const csp = res.headers.get("content-security-policy") ?? "";
        assertStringIncludes(csp, `script-src ${server.url}/dist/;`);
        assertStringIncludes(csp, "frame-ancestors 'none'");
        assert(!csp.includes("unsafe"), "nothing unsafe is allowed");
        const html = await res.text();
        assertStringIncludes(html, '<script type="module" src="/dist/app.js"></script>');
        assert(!/<script>/.test(html), "no inline script");
      }
    });

    await t.step("assets have types and ETags, and answer 304 when unchanged", async () => {
      for (
        const [path, type] of [
          ["/dist/app.js", "text/javascript; charset=utf-8"],
          ["/app.css", "text/css; charset=utf-8"],
          ["/icon.svg", "image/svg+xml"],
          ["/manifest.webmanifest", "application/manifest+json"],
        ]
      ) {
        const res = await get(path);
        assertEquals(res.status, 200, path);
        assertEquals(res.headers.get("content-type"), type);
        assertEquals(res.headers.get("x-content-type-options"), "nosniff");
        const etag = res.headers.get("etag")!;
        assert(/^"[0-9a-f]{20}"$/.test(etag), `${path} has an ETag`);
        await res.body?.cancel();
        const again = await get(path, { "if-none-match": etag });
        assertEquals(again.status, 304, path);
        await again.body?.cancel();
      }
    });

    await t.step("text assets go out gzipped to browsers that accept it", async () => {
      const plain = await get("/dist/app.js", { "accept-encoding": "identity" });
      const bytes = (await plain.arrayBuffer()).byteLength;
      const res = await get("/dist/app.js", { "accept-encoding": "gzip" });
      assertEquals(res.headers.get("content-encoding"), "gzip");
      assertEquals(res.headers.get("vary"), "Accept-Encoding");
      // fetch decompresses: the same bundle arrives.
      assertEquals((await res.arrayBuffer()).byteLength, bytes);
    });

    await t.step("unknown files, folders and escapes are 404; /api stays the API's", async () => {
      for (
        const path of [
          "/nope.js",
          "/dist/",
          "/app/app.tsx",
          "/%2e%2e/deno.json",
          "/..%2fdeno.json",
        ]
      ) {
        const res = await get(path);
        assertEquals(res.status, 404, path);
        await res.body?.cancel();
      }
      const api = await get("/api/nothing-here");
      assertEquals(api.status, 501);
      await api.body?.cancel();
    });

    await t.step(
      "getDictionary: dictionaries without login, a day of caching, 404 otherwise",
      async () => {
        const res = await get("/api/i18n/de");
        assertEquals(res.status, 200);
        assertEquals(res.headers.get("cache-control"), "public, max-age=86400");
        const body = await res.json();
        assertEquals(body.dictionary["Log in"], "Anmelden");
        assertEquals(body.available_languages.en, {
          name: "English",
          language_team: "English (Parley translators)",
        });
        assertEquals(Object.keys(body.available_languages).sort(), ["de", "en", "es", "fr"]);
        const json = await get("/api/i18n/fr.json");
        assertEquals((await json.json()).dictionary.Password, "Mot de passe");
        const missing = await get("/api/i18n/xx");
        assertEquals(missing.status, 404);
        assertEquals((await missing.json()).errors[0].path, "/");
      },
    );
  } finally {
    await server.close();
  }
});
