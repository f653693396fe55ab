import { assert, assertEquals, assertStringIncludes } from "../support/assert.ts";
import { ApiClient } from "../support/api.ts";
import { startServer } from "../support/server.ts";

const PAGE = `<!doctype html><html><head>
<title>Local page</title>
<meta name="description" content="A page &quot;served&quot; by the test">
<meta property="og:image" content="/cover.png">
<meta property="og:site_name" content="Test site">
</head><body><script>document.write("never passed on")</script></body></html>`;

Deno.test("embed API: private addresses refused by default, local pages read when allowed", async (t) => {
  let hits = 0;
  const ac = new AbortController();
  const site: Deno.HttpServer<Deno.NetAddr> = Deno.serve(
    { hostname: "127.0.0.1", port: 0, signal: ac.signal, onListen() {} },
    (req) => {
      hits++;
      const path = new URL(req.url).pathname;
      if (path === "/cover.png" || path === "/photo.jpg") {
        return new Response(new Uint8Array([0x89, 0x50]), {
          headers: { "content-type": "image/png" },
        });
      }
      if (path === "/video") {
        return new Response(
          `<head><title>Plain</title><link rel="alternate" type="application/json+oembed" href="/oembed.json"></head>`,
          { headers: { "content-type": "text/html" } },
        );
      }
      if (path === "/oembed.json") {
        return Response.json({
          type: "video",
          title: "The <video>",
          provider_name: "Tube",
          thumbnail_url: "/thumb.jpg",
          html: "<iframe src=javascript:alert(1)></iframe>",
        });
      }
      return new Response(PAGE, { headers: { "content-type": "text/html; charset=utf-8" } });
    },
  );
  const origin = `http://127.0.0.1:${site.addr.port}`;
  const [strict, open] = await Promise.all([
    startServer(),
    startServer({ env: { PARLEY_EMBED_ALLOW_PRIVATE: "1" } }),
  ]);
  try {
    const [a, b] = await Promise.all([strict, open].map(async (s) => {
      const api = new ApiClient(s.url);
      await api.register("admin@example.com");
      return api;
    }));

    await t.step("needs a login and a url", async () => {
      const anon = await new ApiClient(strict.url).get(`/api/embed?url=${origin}/`);
      assertEquals(anon.status, 401);
      const none = await a.get("/api/embed");
      assertEquals(none.status, 400);
      assertEquals(none.body.errors[0].path, "/query/url");
    });

    await t.step("every spelling of a private address is refused", async () => {
      const port = site.addr.port;
      for (
        const url of [
          `${origin}/`,
          `http://2130706433:${port}/`,
          `http://0177.0.0.1:${port}/`,
          `http://0x7f.0.0.1:${port}/`,
          `http://127.1:${port}/`,
          `http://[::ffff:127.0.0.1]:${port}/`,
          `http://[::1]:${port}/`,
          `http://localhost:${port}/`,
          `http://10.0.0.1/`,
          `http://169.254.169.254/latest/meta-data/`,
          `ftp://example.com/`,
          `javascript:alert(1)`,
        ]
      ) {
        const res = await a.get(`/api/embed.json?url=${encodeURIComponent(url)}`);
        assertEquals(res.status, 400, url);
        assertEquals(res.body.errors[0].path, "/query/url", url);
      }
      assertEquals(hits, 0);
    });

    await t.step("allowed: title, description and OpenGraph image of a local page", async () => {
      const res = await b.get(`/api/embed?url=${encodeURIComponent(origin + "/page")}`);
      assertEquals(res.status, 200, JSON.stringify(res.body));
      assertEquals(res.body.type, "link");
      assertEquals(res.body.title, "Local page");
      assertEquals(res.body.description, 'A page "served" by the test');
      assertEquals(res.body.thumbnail_url, `${origin}/cover.png`);
      assertEquals(res.body.provider_name, "Test site");
      assertEquals(res.body.url, `${origin}/page`);
      assert(!res.body.html.includes("never passed on"));
      const before = hits;
      const again = await b.get(`/api/embed?url=${encodeURIComponent(origin + "/page")}`);
      assertEquals(again.body, res.body);
      assertEquals(hits, before); // cached
    });

    await t.step(
      "an image is a photo; oEmbed discovery is merged, its html not passed on",
      async () => {
        const photo = await b.get(`/api/embed?url=${encodeURIComponent(origin + "/photo.jpg")}`);
        assertEquals(photo.body.type, "photo");
        assertEquals(photo.body.thumbnail_url, `${origin}/photo.jpg`);
        const video = await b.get(`/api/embed?url=${encodeURIComponent(origin + "/video")}`);
        assertEquals(video.body.type, "video");
        assertEquals(video.body.title, "The <video>");
        assertEquals(video.body.provider_name, "Tube");
        assertEquals(video.body.thumbnail_url, `${origin}/thumb.jpg`);
        assert(!video.body.html.includes("iframe"), video.body.html);
        assert(!video.body.html.includes("<video>"), video.body.html);
      },
    );

    await t.step("html and jsonp variants", async () => {
      const q = `url=${encodeURIComponent(origin + "/page")}`;
      const html = await b.get(`/api/embed.html?${q}`);
      assertEquals(html.status, 200);
      assertStringIncludes(html.headers.get("content-type")!, "text/html");
      assertStringIncludes(html.body, "Local page");
      assertStringIncludes(html.headers.get("content-security-policy")!, "sandbox");
      const jsonp = await b.get(`/api/embed.jsonp?${q}&callback=cb.done_1`);
      assertEquals(jsonp.status, 200);
      assert(jsonp.body.startsWith("/**/cb.done_1({"), jsonp.body);
      for (const cb of ["", "alert(1)//", "a b", "1abc", "x".repeat(65)]) {
        const bad = await b.get(`/api/embed.jsonp?${q}&callback=${encodeURIComponent(cb)}`);
        assertEquals(bad.status, 400, cb);
        assertEquals(bad.body.errors[0].path, "/query/callback");
      }
    });
  } finally {
    await Promise.all([strict.close(), open.close()]);
    ac.abort();
    await site.finished;
  }
});
