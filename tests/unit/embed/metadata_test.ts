/** Metadata parsing and the generated HTML of embed. */
import { assert, assertEquals, assertStringIncludes } from "../../support/assert.ts";
import { escapeHtml, fromImage, fromPage, parseHtml } from "../../../embed/metadata.ts";
import { lruCache } from "../../../embed/cache.ts";
import { PageReader } from "../../../embed/page_reader.ts";

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

Deno.test("embed metadata: only the head is read, entities decoded by the tokenizer", () => {
  const head = `<head><title>Caf&eacute; &#x1F600; &amp;c</title>
    <link rel="stylesheet alternate" type=" Application/JSON+oEmbed " href="/o?a=1&amp;b=2">
    <meta property="og:description" content="one&#10;two&nbsp;three"></head>`;
  const meta = parseHtml(head + '<meta property="og:title" content="after the head">', base);
  assertEquals(meta.title, "Café 😀 &c");
  assertEquals(meta.description, "one two three");
  assertEquals(meta.oembed, "https://news.example.com/o?a=1&b=2");
  assertEquals(
    parseHtml('<title>T</title><body><meta property="og:title" content="in the body">', base).title,
    "T",
  );
  // Attribute names are not case-sensitive; the first of a repeated key wins.
  assertEquals(
    parseHtml('<META PROPERTY="og:title" CONTENT="A"><meta property="og:title" content="B">', base)
      .title,
    "A",
  );
});

Deno.test("embed metadata: the charset from the header, else from the page", () => {
  const latin1 = (text: string) => new Uint8Array([...text].map((c) => c.charCodeAt(0)));
  const read = (type: string, ...pieces: Uint8Array[]) => {
    const reader = new PageReader(type);
    for (const p of pieces) reader.write(p);
    return reader.end();
  };
  assertEquals(
    read("text/html; charset=ISO-8859-1", latin1("<title>Caf\xe9</title>")).title,
    "Café",
  );
  assertEquals(
    read("text/html", latin1('<meta charset="windows-1252"><title>\x93q\x94</title>')).title,
    "“q”",
  );
  assertEquals(
    read(
      "text/html",
      latin1('<meta http-equiv="Content-Type" content="text/html; charset=iso-8859-15">'),
      latin1("<title>\xa4</title>"),
    ).title,
    "€",
  );
  // The header wins over the page; an unknown label falls back to UTF-8.
  const utf8 = new TextEncoder().encode('<meta charset="latin1"><title>Café ✓</title>');
  assertEquals(read("text/html; charset=utf-8", utf8).title, "Café ✓");
  assertEquals(read("text/html; charset=nonsense", utf8).title, "Café ✓");
  assertEquals(
    read("text/html", new TextEncoder().encode("<title>Café ✓</title>")).title,
    "Café ✓",
  );
  // A character split between two pieces, after the first 2 KB.
  const long = new TextEncoder().encode(`<!--${" ".repeat(3000)}--><title>ü</title>`);
  const cut = long.indexOf(0xc3) + 1;
  assertEquals(read("text/html", long.subarray(0, cut), long.subarray(cut)).title, "ü");
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
  let now = 1_000;
  const cache = lruCache<{ n: number }>(2, 100, () => now);
  cache.set("a", { n: 1 });
  cache.set("b", { n: 2 });
  assertEquals(cache.get("a")?.n, 1);
  cache.set("c", { n: 3 }); // evicts b, the least recently used
  assertEquals(cache.get("b"), undefined);
  assertEquals(cache.get("a")?.n, 1);
  assertEquals(cache.size, 2);
  now = 1_100;
  assertEquals(cache.get("a")?.n, 1);
  now = 1_101;
  assertEquals(cache.get("a"), undefined);
});
