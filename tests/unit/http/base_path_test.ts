/** Parley under a base URL's path: which request paths are read as under it. */
import { assert, assertEquals } from "../../support/assert.ts";
import { basePath, basePathRefusal, ROOT_SEGMENTS, withinBase } from "../../../http/base_path.ts";
import { startApp } from "../../support/app.ts";

Deno.test("base path: taken off a request's path only where it is a whole segment", () => {
  assertEquals(basePath(new URL("https://example.org/parley/")), "/parley");
  assertEquals(basePath(new URL("https://example.org/")), "");
  assertEquals(withinBase("/parley/api/user", "/parley"), "/api/user");
  assertEquals(withinBase("/parley", "/parley"), "/");
  assertEquals(withinBase("/parley/", "/parley"), "/");
  // A proxy that takes the path off itself: the request is already the app's.
  assertEquals(withinBase("/api/user", "/parley"), "/api/user");
  assertEquals(withinBase("/parleyx/api", "/parley"), "/parleyx/api");
  assertEquals(withinBase("/chat/irc-x", ""), "/chat/irc-x");
});

Deno.test("base path: none may start with a path Parley answers at its root", async () => {
  assertEquals(basePathRefusal("/parley"), undefined);
  assertEquals(basePathRefusal(""), undefined);
  assert(basePathRefusal("/api")?.includes("/api"));
  assert(basePathRefusal("/sw.js/x")?.includes("/sw.js"));
  // The list holds every route's first segment (metrics mounted) and every static file's.
  const t = await startApp({ PARLEY_METRICS: "1" });
  try {
    const routes = t.app.routes.map((r) => r.path.split("/")[1]).filter((s) => s && s !== "*");
    const statics = [...Deno.readDirSync(new URL("../../../static/", import.meta.url))]
      .map((e) => e.name);
    const missing = [...new Set([...routes, ...statics])].filter((s) => !ROOT_SEGMENTS.has(s));
    assertEquals(missing, [], "paths Parley answers that a base path could shadow");
  } finally {
    await t.close();
  }
});
