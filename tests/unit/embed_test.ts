import { assert, assertEquals, assertRejects } from "../support/assert.ts";
import { EmbedFailed, EmbedRefused, safeFetch } from "../../embed/fetch.ts";
import { cardHtml, parseHtml } from "../../embed/metadata.ts";
import { LruCache } from "../../embed/cache.ts";

Deno.test("embed fetch: each redirect target is checked again", async () => {
  const ac = new AbortController();
  const srv: Deno.HttpServer<Deno.NetAddr> = Deno.serve(
    { hostname: "127.0.0.1", port: 0, signal: ac.signal, onListen() {} },
    (req) => {
      const path = new URL(req.url).pathname;
      if (path === "/to-private") {
        return new Response(null, {
          status: 302,
          headers: { location: `http://0177.0.0.2:${port}/x` },
        });
      }
      if (path.startsWith("/loop")) {
        return new Response(null, { status: 302, headers: { location: `/loop${path.length}` } });
      }
      if (path === "/chunked") {
        const body = new ReadableStream({
          start(c) {
            c.enqueue(new TextEncoder().encode("<title>chunk"));
            c.enqueue(new TextEncoder().encode("ed</title>"));
            c.close();
          },
        });
        return new Response(body, { headers: { "content-type": "text/html" } });
      }
      if (path === "/big") return new Response("x".repeat(3_000_000));
      return new Response(`host=${req.headers.get("host")}`);
    },
  );
  const port: number = srv.addr.port;
  // This policy stands for "public": only 127.0.0.1 passes, so 127.0.0.2 plays the private address.
  const opts = { allowPrivate: false, allowAddress: (ip: string) => ip === "127.0.0.1" };
  try {
    const ok = await safeFetch(`http://127.0.0.1:${port}/`, opts);
    assertEquals(new TextDecoder().decode(ok.body), `host=127.0.0.1:${port}`);
    const err = await assertRejects(() => safeFetch(`http://127.0.0.1:${port}/to-private`, opts));
    assert(err instanceof EmbedRefused, String(err));
    const loop = await assertRejects(() => safeFetch(`http://127.0.0.1:${port}/loop`, opts));
    assert(loop instanceof EmbedFailed && /redirects/.test(loop.message), String(loop));
    const chunked = await safeFetch(`http://127.0.0.1:${port}/chunked`, opts);
    assertEquals(new TextDecoder().decode(chunked.body), "<title>chunked</title>");
    const big = await safeFetch(`http://127.0.0.1:${port}/big`, opts);
    assertEquals(big.body.length, 1_000_000);
    assert(big.truncated);
    const denied = await assertRejects(() =>
      safeFetch(`http://127.0.0.1:${port}/`, { allowPrivate: false })
    );
    assert(denied instanceof EmbedRefused);
    for (const bad of ["ftp://example.com/", "javascript:alert(1)", "file:///etc/passwd", "nope"]) {
      assert((await assertRejects(() => safeFetch(bad, opts))) instanceof EmbedRefused, bad);
    }
  } finally {
    ac.abort();
    await srv.finished;
  }
});

Deno.test("embed metadata: OpenGraph, Twitter, title and oEmbed discovery", () => {
  const base = new URL("https://example.com/a/page");
  const meta = parseHtml(
    `<html><head><title>Plain &amp; simple</title>
    <meta name="description" content="The description">
    <meta property="og:image" content="/img/x.png">
    <meta name="twitter:title" content="Tweet title">
    <link rel="alternate" type="application/json+oembed" href="/oembed?u=1&amp;f=json">
    </head><body><meta property="og:title" content="in body, ignored"></body></html>`,
    base,
  );
  assertEquals(meta.title, "Tweet title");
  assertEquals(meta.description, "The description");
  assertEquals(meta.image, "https://example.com/img/x.png");
  assertEquals(meta.oembed, "https://example.com/oembed?u=1&f=json");
  const js = parseHtml(`<meta property="og:image" content="javascript:alert(1)">`, base);
  assertEquals(js.image, undefined);
  const html = cardHtml({
    type: "link",
    url: 'https://example.com/?a=1&b="2"',
    title: "<script>alert(1)</script>",
    description: "it's <b>bold</b>",
  });
  assert(!html.includes("<script>") && !html.includes("<b>"), html);
  assert(html.includes("&#60;script&#62;"), html);
});

Deno.test("embed cache: bounded and expiring", () => {
  const cache = new LruCache<number>(2, 1000);
  cache.set("a", 1, 0);
  cache.set("b", 2, 0);
  assertEquals(cache.get("a", 10), 1); // a is now the most recent
  cache.set("c", 3, 10);
  assertEquals(cache.get("b", 10), undefined);
  assertEquals(cache.size, 2);
  assertEquals(cache.get("a", 2000), undefined);
});
