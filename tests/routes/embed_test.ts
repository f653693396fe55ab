/**
 * embed in process (tests/support/app.ts) against real pages on loopback: private addresses
 * refused in every spelling unless allowed, metadata, hostile pages, the html and jsonp variants.
 */
import { assert, assertEquals, assertStringIncludes } from "../support/assert.ts";
import { startApp } from "../support/app.ts";
import { serveHostile } from "../support/hostile_pages.ts";

const PAGE = `<!doctype html><html><head>
<title>Fallback title</title>
<meta property="og:title" content="A local &amp; private page">
<meta name="description" content="Served by the test &lt;here&gt;.">
<meta property="og:image" content="/cover.png">
<link rel="alternate" type="application/json+oembed" href="/oembed.json">
</head><body>hello</body></html>`;

Deno.test("embed: private pages refused by default, read when allowed", async (t) => {
  const site = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (req) => {
    const path = new URL(req.url).pathname;
    if (path === "/page") return new Response(PAGE, { headers: { "content-type": "text/html" } });
    if (path === "/oembed.json") {
      return Response.json({
        type: "rich",
        provider_name: "Test Site",
        html: "<script>x</script>",
      });
    }
    if (path === "/cover.png") {
      return new Response(new Uint8Array([137, 80, 78, 71]), {
        headers: { "content-type": "image/png" },
      });
    }
    return new Response("missing", { status: 404 });
  });
  const hostile = serveHostile();
  const port = site.addr.port;
  const page = `http://127.0.0.1:${port}/page`;
  const strict = await startApp();
  const open = await startApp({ PARLEY_EMBED_ALLOW_PRIVATE: "1" });
  try {
    const s = strict.client();
    const o = open.client();

    await t.step("needs a session", async () => {
      const res = await s.get(`/api/embed?url=${encodeURIComponent(page)}`);
      assertEquals(res.status, 401);
    });
    await s.register("a@example.com");
    await o.register("a@example.com");

    await t.step("a local page is refused by default, in every spelling", async () => {
      for (
        const u of [
          page,
          `http://2130706433:${port}/page`,
          `http://0177.0.0.1:${port}/page`,
          `http://0x7f000001:${port}/page`,
          `http://127.1:${port}/page`,
          `http://[::ffff:127.0.0.1]:${port}/page`,
          `http://localhost:${port}/page`,
        ]
      ) {
        const res = await s.get(`/api/embed?url=${encodeURIComponent(u)}`);
        assertEquals(res.status, 400, u);
        assertEquals(res.body.errors[0].path, "/query/url");
      }
    });

    await t.step("non-HTTP schemes and bad input are 400 at /query/url", async () => {
      for (const u of ["ftp://example.com/x", "file:///etc/passwd", "not a url", ""]) {
        const res = await s.get(`/api/embed?url=${encodeURIComponent(u)}`);
        assertEquals(res.status, 400, u);
        assertEquals(res.body.errors[0].path, "/query/url");
      }
      const none = await s.get("/api/embed");
      assertEquals(none.body.errors[0].path, "/query/url");
    });

    await t.step("with PARLEY_EMBED_ALLOW_PRIVATE=1 the page is read", async () => {
      const res = await o.get(`/api/embed?url=${encodeURIComponent(page)}`);
      assertEquals(res.status, 200);
      assertEquals(res.body.type, "rich");
      assertEquals(res.body.title, "A local & private page");
      assertEquals(res.body.description, "Served by the test <here>.");
      assertEquals(res.body.thumbnail_url, `http://127.0.0.1:${port}/cover.png`);
      assertEquals(res.body.provider_name, "Test Site");
      assertEquals(res.body.url, page);
      assert(!res.body.html.includes("<script"), "no remote markup");
      assertStringIncludes(res.body.html, "Served by the test &#60;here&#62;.");
      const json = await o.get(`/api/embed.json?url=${encodeURIComponent(page)}`);
      assertEquals(json.body, res.body);
    });

    await t.step("an image is a photo", async () => {
      const img = `http://127.0.0.1:${port}/cover.png`;
      const res = await o.get(`/api/embed?url=${encodeURIComponent(img)}`);
      assertEquals([res.body.type, res.body.url], ["photo", img]);
    });

    await t.step("a page answering 404 is a 502", async () => {
      const res = await o.get(`/api/embed?url=${encodeURIComponent(`http://127.0.0.1:${port}/x`)}`);
      assertEquals(res.status, 502);
      assertEquals(res.body.errors[0].path, "/query/url");
    });

    await t.step("hostile pages that never end get a preview from their head", async () => {
      for (const [name, title] of [["comments", "Comments"], ["head", "Head"]]) {
        const url = hostile.url("open", name);
        const res = await o.get(`/api/embed?url=${encodeURIComponent(url)}`);
        assertEquals([res.status, res.body.title], [200, title], name);
      }
    });

    await t.step("the html and jsonp variants", async () => {
      const html = await o.get(`/api/embed.html?url=${encodeURIComponent(page)}`);
      assertEquals(html.status, 200);
      assertStringIncludes(html.headers.get("content-type")!, "text/html");
      assertStringIncludes(html.body, '<div class="parley-embed');
      const jsonp = await o.get(
        `/api/embed.jsonp?callback=app.cb_1&url=${encodeURIComponent(page)}`,
      );
      assertEquals(jsonp.status, 200);
      assertStringIncludes(jsonp.headers.get("content-type")!, "application/javascript");
      assert(jsonp.body.startsWith("/**/app.cb_1({"), jsonp.body);
      for (const cb of ["alert(1)//", "", "1abc", "a".repeat(65)]) {
        const bad = await o.get(
          `/api/embed.jsonp?callback=${encodeURIComponent(cb)}&url=${encodeURIComponent(page)}`,
        );
        assertEquals(bad.status, 400, cb);
        assertEquals(bad.body.errors[0].path, "/query/callback");
      }
    });
  } finally {
    await strict.close();
    await open.close();
    await site.shutdown();
    await hostile.close();
  }
});
