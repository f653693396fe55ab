/** Metadata parsing and the generated HTML of embed. */
import { assert, assertEquals, assertStringIncludes } from "../support/assert.ts";
import { escapeHtml, fromImage, fromPage, parseHtml } from "../../embed/metadata.ts";
import { LruCache } from "../../embed/cache.ts";

const base = new URL("https://news.example.com/story/1");

Deno.test("embed metadata: OpenGraph, Twitter card and oEmbed discovery", () => {
  const html = `<!doctype html><html><head>
    <title>Plain &amp; simple</title>
    <meta property="og:title" content="The &quot;story&quot;">
    <meta name=twitter:description content='From Twitter'>
    <meta name="description" content="Plain description">
    <meta property="og:image" content="/img/a.png">
    <meta property="og:site_name" content="Example News">
    <!-- <meta property="og:title" content="in a comment"> -->
    <link rel="alternate" type="application/json+oembed" href="/oembed?url=1">
    <script>var s = '<meta property="og:description" content="in a script">';</script>
    </head><body></body></html>`;
  const meta = parseHtml(html, base);
  assertEquals(meta.title, 'The "story"');
  assertEquals(meta.description, "From Twitter");
  assertEquals(meta.image, "https://news.example.com/img/a.png");
  assertEquals(meta.siteName, "Example News");
  assertEquals(meta.oembed, "https://news.example.com/oembed?url=1");
  assertEquals(parseHtml("<title> Only\n a title </title>", base).title, "Only a title");
  assertEquals(
    parseHtml('<meta property="og:image" content="javascript:alert(1)">', base).image,
    undefined,
  );
});

Deno.test("embed metadata: the html is built from escaped values only", () => {
  const meta = parseHtml(
    `<meta property="og:title" content="&lt;script&gt;alert(1)&lt;/script&gt;">
     <meta property="og:description" content='"><img src=x onerror=alert(1)>'>`,
    base,
  );
  const info = fromPage(base, meta, { type: "rich", html: "<iframe src=evil></iframe>" });
  assertEquals(info.type, "rich");
  assert(!info.html.includes("<script"), info.html);
  assert(!info.html.includes("<iframe"), info.html);
  assert(!info.html.includes("<img src=x"), info.html);
  assertStringIncludes(info.html, "&#60;script&#62;");
  assertEquals(escapeHtml(`<a href="x">'&`), "&#60;a href=&#34;x&#34;&#62;&#39;&#38;");

  const photo = fromPage(base, {}, {
    type: "photo",
    url: "https://img.example.com/p.jpg",
    title: "P",
  });
  assertEquals([photo.type, photo.url, photo.thumbnail_url], [
    "photo",
    "https://img.example.com/p.jpg",
    "https://img.example.com/p.jpg",
  ]);
  const image = fromImage(new URL("https://img.example.com/a%20b.png"));
  assertEquals([image.type, image.title], ["photo", "a b.png"]);
});

Deno.test("embed cache: bounded and expiring", () => {
  let now = 0;
  const cache = new LruCache<number>(2, 100, () => now);
  cache.set("a", 1);
  cache.set("b", 2);
  assertEquals(cache.get("a"), 1);
  cache.set("c", 3); // evicts b, the least recently used
  assertEquals(cache.get("b"), undefined);
  assertEquals(cache.get("a"), 1);
  assertEquals(cache.size, 2);
  now = 101;
  assertEquals(cache.get("a"), undefined);
});
