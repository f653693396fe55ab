/**
 * Parley under a path of its host (`PARLEY_BASE_URL=http://127.0.0.1:3000/parley/`), in process:
 * a proxy may pass requests on with the path or without it, and what Parley writes (the page's
 * URLs, its policy, the API's base path, the cookie, redirects) starts with the path.
 */
import { assert, assertEquals, assertStringIncludes } from "../support/assert.ts";
import { startApp } from "../support/app.ts";

Deno.test("a base URL with a path: served under it, with or without the path passed on", async (t) => {
  const app = await startApp({ PARLEY_BASE_URL: "http://127.0.0.1:3000/parley/" });
  try {
    await t.step("the page's own URLs and its policy start with the path", async () => {
      for (const path of ["/parley/", "/parley/chat/irc-x/%23y", "/settings/account"]) {
        const res = await app.request(path);
        assertEquals(res.status, 200, path);
        const html = res.body as string;
        assertStringIncludes(html, '<script type="module" src="/parley/dist/app.js"></script>');
        assertStringIncludes(html, 'href="/parley/app.css"');
        assertStringIncludes(html, 'href="/parley/manifest.webmanifest"');
        assert(!/(href|src)="\/(?!parley\/)/.test(html), "no URL outside the path");
        const csp = res.headers.get("content-security-policy") ?? "";
        assertStringIncludes(csp, "script-src http://localhost/parley/dist/;");
        assertStringIncludes(csp, "worker-src http://localhost/parley/sw.js;");
      }
    });

    await t.step("assets and the API document, at the path", async () => {
      for (const path of ["/parley/sw.js", "/parley/manifest.webmanifest", "/parley/icon.svg"]) {
        assertEquals((await app.request(path)).status, 200, path);
      }
      const doc = await app.request("/parley/api");
      assertEquals(doc.body.basePath, "/parley/api");
      assertEquals((await app.request("/parley/nothing-here")).status, 404);
      // The IRC clients' WebSocket: its own answer to a request that is not one.
      const socket = await app.request("/parley/socket");
      assertEquals(socket.body.errors[0].message, "The IRC listener is off (PARLEY_IRC_LISTEN).");
    });

    let cookie = "";
    await t.step("the session cookie is the path's only", async () => {
      const res = await app.post("/parley/api/user/register", {
        email: "alice@example.com",
        password: "correct horse battery",
      });
      assertEquals(res.status, 200);
      const set = res.headers.getSetCookie()[0];
      assertStringIncludes(set, "Path=/parley/");
      cookie = set.split(";")[0];
    });

    await t.step("with the path or without it, the same operation", async () => {
      for (const path of ["/parley/api/user", "/api/user", "/parley/api/user.json"]) {
        const res = await app.request(path, { headers: { cookie } });
        assertEquals(res.status, 200, path);
        assertEquals(res.body.email, "alice@example.com");
      }
    });

    await t.step("an irc:// link opened in Parley leads on under the path", async () => {
      const uri = encodeURIComponent("irc://irc.example.com/%23x");
      const res = await app.request(`/parley/register?uri=${uri}`, { headers: { cookie } });
      assertEquals(res.status, 302);
      assert(
        res.headers.get("location")?.startsWith("/parley/settings/"),
        res.headers.get("location") ?? "",
      );
    });

    await t.step("logging out leads to the login page under the path", async () => {
      const csrf = (await app.request("/parley/api/user", { headers: { cookie } })).body.csrf;
      const res = await app.request(`/parley/api/user/logout?csrf=${csrf}`, {
        headers: { cookie },
      });
      assertEquals(res.status, 302);
      assertEquals(res.headers.get("location"), "/parley/login");
      assertStringIncludes(res.headers.getSetCookie()[0], "Path=/parley/");
    });
  } finally {
    await app.close();
  }
});

Deno.test("at a host name's root the page's URLs have no path", async () => {
  const app = await startApp();
  try {
    const res = await app.request("/chat");
    assertStringIncludes(res.body as string, 'src="/dist/app.js"');
    assertEquals((await app.request("/api")).body.basePath, "/api");
  } finally {
    await app.close();
  }
});
