/**
 * Convos 8.07 t/web-basic.t ported: the front page is the web client's page, and everything its
 * head links to is served.
 */
import { compatServer, is, jsonIs, like, ok, statusIs } from "../support/compat.ts";

/** The value of `attr` on every tag `tag` of `html` (enough for the page Parley serves). */
function attrs(html: string, tag: string, attr: string): string[] {
  const out: string[] = [];
  for (const m of html.matchAll(new RegExp(`<${tag}\\b[^>]*>`, "gi"))) {
    const v = new RegExp(`\\s${attr}="([^"]*)"`, "i").exec(m[0]);
    if (v) out.push(v[1]);
  }
  return out;
}

Deno.test("web-basic.t", async (t) => {
  // No default connection: the user registered below has no need to reach an IRC network.
  const server = await compatServer({ env: { PARLEY_NEW_USER_CONNECTION: "0" } });
  const api = server.client();
  try {
    const res = await api.get("/");
    const html = String(res.body);
    const head = /<head>([\s\S]*)<\/head>/i.exec(html)?.[1] ?? "";

    await t.step("defaults", async () => {
      statusIs("web-basic.t:11", res, 200);
      like("web-basic.t:11", res.headers.get("content-type"), /^text\/html/, "content-type: ");
      // web-basic.t:17 adapted (design): Parley's page is titled Parley, not "... - Convos".
      like("web-basic.t:17", /<title>([^<]+)<\/title>/.exec(head)?.[1], /\S/, "title: ");
      ok(
        "web-basic.t:19",
        attrs(head, "meta", "name").includes("viewport") &&
          /width=device-width, initial-scale=1/.test(
            /<meta name="viewport" content="([^"]*)"/.exec(head)?.[1] ?? "",
          ),
        'meta name="viewport" with width=device-width, initial-scale=1',
      );
      like(
        "web-basic.t:32",
        /<meta name="description" content="([^"]*)"/.exec(head)?.[1],
        /\S/,
        "meta description: ",
      );
      like("web-basic.t:45", /<noscript>([\s\S]*?)<\/noscript>/.exec(html)?.[1], /javascript/i);
      ok("web-basic.t:47", attrs(head, "link", "rel").includes("stylesheet"), "a stylesheet link");
      ok("web-basic.t:47", attrs(head, "script", "src").length > 0, "a script");
      // web-basic.t:47, and web-cms-links.t's crawl of a page's links: what the page's head links
      // to is served (a page that links to a missing bundle is a blank page).
      const linked = [...attrs(head, "link", "href"), ...attrs(head, "script", "src")];
      for (const href of linked.filter((h) => h.startsWith("/"))) {
        statusIs(`web-basic.t:47 ${href}`, await api.get(href), 200);
      }
    });

    // LEFT OUT web-basic.t:17-43 (html): Convos's meta tags for its own site (convos:*, twitter:*,
    // og:*, its hero image and version): Parley's page is its client's, not a site's.

    await t.step("organization_name and organization_url", async () => {
      // web-basic.t:51-52: the settings change; Parley's page is static (its client reads the
      // settings through the API), so the page is the same and the API shows the new values.
      const admin = server.client();
      await admin.register("superman@example.com", "s3cret-enough");
      const set = await admin.post("/api/settings", {
        organization_name: "Example",
        organization_url: "http://example.com",
      });
      statusIs("web-basic.t:51", set, 200);
      const page = await api.get("/");
      statusIs("web-basic.t:53", page, 200);
      is("web-basic.t:53", page.body, res.body, "the page: ");
      const settings = await admin.get("/api/settings");
      jsonIs("web-basic.t:54", settings, "/organization_name", "Example");
      jsonIs("web-basic.t:57", settings, "/organization_url", "http://example.com");
      // LEFT OUT web-basic.t:53-59 (html): the title "Convos for Example", the hero's link and
      // image: Parley's client shows the organization from the settings, not the page.
    });
  } finally {
    await server.close();
  }
});
