/**
 * An address Parley has no page for (http/not_found_page.ts): a browser opening it gets a page
 * saying so with a link into the app, under the base path; scripts and the API keep their error
 * bodies.
 */
import { assert, assertEquals, assertStringIncludes } from "../support/assert.ts";
import { startApp } from "../support/app.ts";

const NAVIGATE = { "sec-fetch-mode": "navigate", accept: "text/html,*/*;q=0.8" };

Deno.test("an unknown page: a browser gets a page, a script the error body", async (t) => {
  const a = await startApp();
  try {
    await t.step("a browser opening it", async () => {
      for (const headers of [NAVIGATE, { accept: "text/html,application/xhtml+xml" }]) {
        const res = await a.request("/notifications", { headers });
        assertEquals(res.status, 404);
        assertEquals(res.headers.get("content-type"), "text/html; charset=UTF-8");
        const html = String(res.body);
        assertStringIncludes(html, "<h1>Page not found</h1>");
        assertStringIncludes(html, '<a href="/">Open Parley</a>');
        assert(!html.includes("<script"), "no script");
        assertEquals(
          res.headers.get("content-security-policy"),
          "default-src 'none'; style-src 'unsafe-inline'",
        );
      }
    });

    await t.step("a script, a fetch, the API", async () => {
      const script = await a.request("/notifications");
      assertEquals(script.status, 404);
      assertEquals(script.body, { errors: [{ message: "Not found.", path: "/" }] });
      // A page's own fetch says so even when it accepts anything.
      const fetched = await a.request("/nope", {
        headers: { "sec-fetch-mode": "cors", accept: "text/html, */*" },
      });
      assertEquals(fetched.body, { errors: [{ message: "Not found.", path: "/" }] });
      const posted = await a.request("/nope", { method: "POST", headers: { accept: "text/html" } });
      assertEquals(posted.status, 404);
      assertEquals(posted.body, { errors: [{ message: "Not found.", path: "/" }] });
      const api = await a.request("/api/nope", { headers: NAVIGATE });
      assertEquals([api.status, api.body], [501, {
        errors: [{ message: "Unknown operation.", path: "/" }],
      }]);
    });
  } finally {
    await a.close();
  }
});

Deno.test("an unknown page speaks the browser's language when Parley has it", async () => {
  const a = await startApp();
  try {
    const page = async (language?: string) => {
      const headers = { ...NAVIGATE, ...language ? { "accept-language": language } : {} };
      const res = await a.request("/nope", { headers });
      assertEquals(res.status, 404);
      return { html: String(res.body), lang: res.headers.get("content-language") };
    };
    const de = await page("de-AT,de;q=0.9,en;q=0.5");
    assertEquals(de.lang, "de");
    assertStringIncludes(de.html, '<html lang="de">');
    assertStringIncludes(de.html, "<h1>Seite nicht gefunden</h1>");
    assertStringIncludes(de.html, '<a href="/">Parley öffnen</a>');
    // The first language Parley has, by the browser's weights.
    const fr = await page("ja;q=0.9, fr;q=0.8, es;q=0.7");
    assertStringIncludes(fr.html, "<h1>Page introuvable</h1>");
    assertStringIncludes(fr.html, "<p>Parley n'a aucune page à cette adresse.</p>");
    // None it has, none asked, or nonsense: English.
    for (const language of ["ja, zh-CN", undefined, ";;,q=x", "fr;q=0"]) {
      const en = await page(language);
      assertEquals(en.lang, "en", String(language));
      assertStringIncludes(en.html, "<h1>Page not found</h1>");
    }
  } finally {
    await a.close();
  }
});

Deno.test("an unknown page under a base path links to the app there", async () => {
  const a = await startApp({ PARLEY_BASE_URL: "https://example.org/chat-room/" });
  try {
    const res = await a.request("/chat-room/nope", {
      headers: { ...NAVIGATE, host: "example.org" },
    });
    assertEquals(res.status, 404);
    assertStringIncludes(String(res.body), '<a href="/chat-room/">Open Parley</a>');
  } finally {
    await a.close();
  }
});
