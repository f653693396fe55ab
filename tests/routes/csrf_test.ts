/**
 * The CSRF guard of every state-changing /api request, cookie or not (http/origin.ts), and JSON
 * bodies only as `application/json` (http/validate.ts): what a browser page of another origin
 * sends is refused; what curl, scripts and IRC clients send (no Origin, no Referer, no
 * Sec-Fetch-Site) goes on; uploads and webhooks keep their own types.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { startApp } from "../support/app.ts";
import { botConfigSchema, ensureBot } from "../../irc/bot/bot.ts";
import { githubSignature } from "../../webhook/github.ts";

const EMAIL = "owner@example.com";
const PASSWORD = "correct horse battery";
const LOGIN = JSON.stringify({ email: EMAIL, password: PASSWORD });

Deno.test("CSRF: unsafe requests from another origin are refused, with or without a cookie", async (t) => {
  const a = await startApp();
  const ours = a.deps.config.baseUrl.origin;
  const login = (headers: Record<string, string>, body = LOGIN) =>
    a.request("/api/user/login", { method: "POST", body, headers });
  const json = { "content-type": "application/json" };
  try {
    const cookie = await a.register(EMAIL, PASSWORD);

    await t.step(
      "a login from another origin, no cookie: 403 at the header, no session",
      async () => {
        const cases: [Record<string, string>, string][] = [
          [{ origin: "https://evil.example" }, "/header/origin"],
          // Another port of the same host is another origin of the same site.
          [{ origin: "http://127.0.0.1:3001" }, "/header/origin"],
          // A sandboxed frame or a page behind a cross-origin redirect.
          [{ origin: "null" }, "/header/origin"],
          [{ "sec-fetch-site": "cross-site" }, "/header/sec-fetch-site"],
          [{ "sec-fetch-site": "same-site" }, "/header/sec-fetch-site"],
          [{ "sec-fetch-site": "cross-site", origin: ours }, "/header/sec-fetch-site"],
          [{ referer: "https://evil.example/page" }, "/header/referer"],
          [{ referer: "not a url" }, "/header/referer"],
        ];
        for (const [headers, path] of cases) {
          const res = await login({ ...json, ...headers });
          const what = JSON.stringify(headers);
          assertEquals(res.status, 403, what);
          assertEquals(res.body.errors[0].path, path, what);
          assertEquals(res.headers.getSetCookie(), [], `${what}: no session`);
        }
      },
    );

    await t.step("a cookie-carrying change from another origin is refused too", async () => {
      for (const method of ["POST", "PUT", "DELETE", "PATCH"]) {
        const res = await a.request("/api/settings", {
          method,
          body: JSON.stringify({ organization_name: "Evil" }),
          headers: { ...json, cookie, origin: "https://evil.example" },
        });
        assertEquals(res.status, 403, method);
      }
      const settings = await a.request("/api/settings", { headers: { cookie } });
      assert(settings.body.organization_name !== "Evil");
    });

    await t.step("scripts, and the same origin, go on", async () => {
      const allowed: Record<string, string>[] = [
        // curl, scripts, IRC clients with an app token: none of the three headers.
        {},
        { origin: ours },
        { "sec-fetch-site": "same-origin", origin: ours },
        { "sec-fetch-site": "same-origin" },
        // A user's own navigation (typed, bookmarked).
        { "sec-fetch-site": "none" },
        { referer: `${ours}/login` },
      ];
      for (const headers of allowed) {
        const res = await login({ ...json, ...headers });
        assertEquals(res.status, 200, JSON.stringify(headers));
      }
      // Reading is never refused: links from other sites open Parley.
      const read = await a.request("/api/user", {
        headers: { cookie, origin: "https://evil.example", "sec-fetch-site": "cross-site" },
      });
      assertEquals(read.status, 200);
    });

    await t.step("a JSON body not sent as application/json: 415 at the header", async () => {
      for (const type of [undefined, "text/plain", "application/x-www-form-urlencoded"]) {
        const res = await login(type ? { "content-type": type } : {});
        assertEquals(res.status, 415, String(type));
        assertEquals(res.body.errors[0].path, "/header/content-type", String(type));
        assertEquals(res.headers.getSetCookie(), [], `${type}: no session`);
      }
      const multipart = new FormData();
      multipart.set("email", EMAIL);
      multipart.set("password", PASSWORD);
      const form = await a.request("/api/user/login", { method: "POST", body: multipart });
      assertEquals(form.status, 415);
      // With parameters, in any case: JSON.
      const charset = await login({ "content-type": "Application/JSON; charset=utf-8" });
      assertEquals(charset.status, 200);
      // No body needs no type (fetch() calls an empty string text/plain).
      for (const body of [undefined, ""]) {
        const empty = await a.request("/api/settings", {
          method: "POST",
          body,
          headers: { cookie },
        });
        assertEquals(empty.status, 200, JSON.stringify(body));
      }
    });

    await t.step("uploads are multipart, from scripts too", async () => {
      const form = new FormData();
      form.set("file", new File(["hello"], "hello.txt", { type: "text/plain" }));
      const res = await a.request("/api/files", {
        method: "POST",
        body: form,
        headers: { cookie },
      });
      assertEquals(res.status, 200);
      const foreign = await a.request("/api/files", {
        method: "POST",
        body: form,
        headers: { cookie, origin: "https://evil.example" },
      });
      assertEquals(foreign.status, 403);
    });

    await t.step("GitHub's webhook, JSON or form-encoded, no Origin: goes on", async () => {
      a.deps.bot = await ensureBot(
        a.deps,
        botConfigSchema.parse({
          email: "bot@example.com",
          webhooks: {
            github: {
              secret: "webhook secret",
              // Routed nowhere: no IRC is needed to answer.
              routes: [{ repository: "owner/other", events: ["issues"], to: "irc-x/#y" }],
            },
          },
        }),
      );
      const payload = (n: number) =>
        JSON.stringify({
          action: "opened",
          repository: { full_name: "owner/name" },
          sender: { login: "alice" },
          issue: { number: n, title: "t", html_url: `https://github.com/owner/name/issues/${n}` },
        });
      const bodies: [string, string][] = [
        ["application/json", payload(1)],
        [
          "application/x-www-form-urlencoded",
          new URLSearchParams({ payload: payload(2) }).toString(),
        ],
      ];
      for (const [type, body] of bodies) {
        const signature = await githubSignature("webhook secret", new TextEncoder().encode(body));
        const res = await a.request("/api/webhook/github", {
          method: "POST",
          body,
          headers: {
            "content-type": type,
            "x-github-event": "issues",
            "x-hub-signature-256": signature,
          },
        });
        assertEquals(res.status, 200, `${type}: ${JSON.stringify(res.body)}`);
      }
    });
  } finally {
    await a.close();
  }
});
