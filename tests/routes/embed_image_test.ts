/**
 * Preview images through Parley (/api/embed/image) against real HTTP servers on loopback: only
 * for logged-in users, only raster images recognised by their bytes, bounded in size and time,
 * cached, served with headers that keep the browser from reading them as anything else; and a
 * redirect is checked against the address rules like the first address.
 */
import { assert, assertEquals, assertStringIncludes } from "../support/assert.ts";
import { startApp } from "../support/app.ts";
import { IMAGE_LIMITS, ImageProxy } from "../../embed/image_proxy.ts";
import { lruCache } from "../../embed/cache.ts";
import { FetchRefused } from "../../embed/safe_fetch.ts";

/** A real (tiny) PNG: signature, IHDR of a 1x1 image. */
const PNG = Uint8Array.from([
  0x89,
  0x50,
  0x4e,
  0x47,
  0x0d,
  0x0a,
  0x1a,
  0x0a,
  0,
  0,
  0,
  13,
  0x49,
  0x48,
  0x44,
  0x52,
  0,
  0,
  0,
  1,
  0,
  0,
  0,
  1,
  8,
  6,
  0,
  0,
  0,
  0x1f,
  0x15,
  0xc4,
  0x89,
]);
const JPEG = Uint8Array.from([0xff, 0xd8, 0xff, 0xe0, 0, 16, 0x4a, 0x46, 0x49, 0x46, 0, 1, 1, 0]);
const SVG = `<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>`;

/** A body that goes on for ever, a piece at a time, until the reader hangs up. */
function endless(piece: Uint8Array, everyMs = 0): ReadableStream<Uint8Array> {
  let timer: ReturnType<typeof setInterval> | undefined;
  return new ReadableStream({
    start(c) {
      if (everyMs) {
        c.enqueue(piece);
        timer = setInterval(() => c.enqueue(piece), everyMs);
      }
    },
    pull(c) {
      if (!everyMs) c.enqueue(piece);
    },
    cancel() {
      clearInterval(timer);
    },
  });
}

Deno.test("embed image: served through Parley, checked, bounded and cached", async (t) => {
  const seen: string[] = [];
  const site = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (req) => {
    const path = new URL(req.url).pathname;
    seen.push(path);
    const image = (body: BodyInit, type: string, more: HeadersInit = {}) =>
      new Response(body, { headers: { "content-type": type, ...more } });
    switch (path) {
      case "/a.png":
        return image(PNG, "image/png");
      case "/b.jpg":
        return image(JPEG, "application/octet-stream");
      case "/c.svg":
        return image(SVG, "image/svg+xml");
      case "/page.png":
        return image("<html><script>alert(1)</script></html>".repeat(3), "image/png");
      case "/page.html":
        return image(endless(new Uint8Array(65536)), "text/html");
      case "/huge.png":
        return image(new Uint8Array(IMAGE_LIMITS.maxBytes + 10).fill(1), "image/png");
      case "/endless.png":
        return image(endless(PNG.slice().fill(7, 16)), "image/png");
      case "/slow.png":
        return image(endless(PNG.slice(0, 4), 200), "image/png");
      case "/hop":
        return Response.redirect(new URL("/a.png", req.url), 302);
    }
    return new Response("missing", { status: 404 });
  });
  const port = site.addr.port;
  const at = (path: string) => `http://127.0.0.1:${port}${path}`;
  const strict = await startApp();
  const open = await startApp({ PARLEY_EMBED_ALLOW_PRIVATE: "1" });
  const cookies = {
    strict: await strict.register("a@example.com"),
    open: await open.register("a@example.com"),
  };
  const get = async (app: "strict" | "open", url: string, cookie = cookies[app]) => {
    const a = app === "strict" ? strict : open;
    const res = await a.app.request(`/api/embed/image?url=${encodeURIComponent(url)}`, {
      headers: cookie ? { cookie } : {},
    });
    const bytes = new Uint8Array(await res.arrayBuffer());
    const type = res.headers.get("content-type") ?? "";
    const json = type.includes("json") ? JSON.parse(new TextDecoder().decode(bytes)) : undefined;
    return { status: res.status, headers: res.headers, bytes, json };
  };
  const timeout = IMAGE_LIMITS.timeoutMs;
  try {
    await t.step("needs a session: no open proxy for strangers", async () => {
      const res = await get("open", at("/a.png"), "");
      assertEquals(res.status, 401);
      assertEquals(seen, [], "nothing fetched");
    });

    await t.step("the address rules of previews: loopback refused unless allowed", async () => {
      const res = await get("strict", at("/a.png"));
      assertEquals(res.status, 400);
      assertEquals(res.json.errors[0].path, "/query/url");
      for (const u of ["file:///etc/passwd", "not a url"]) {
        assertEquals((await get("open", u)).status, 400, u);
      }
      assertEquals(seen, [], "nothing fetched");
    });

    await t.step("an image is served with its type by its bytes, cached", async () => {
      const res = await get("open", at("/a.png"));
      assertEquals(res.status, 200);
      assertEquals(res.bytes, PNG);
      assertEquals(res.headers.get("content-type"), "image/png");
      assertEquals(res.headers.get("x-content-type-options"), "nosniff");
      assertStringIncludes(res.headers.get("cache-control") ?? "", "max-age=");
      assertStringIncludes(res.headers.get("content-security-policy") ?? "", "sandbox");
      const again = await get("open", at("/a.png"));
      assertEquals([again.status, again.headers.get("x-cached")], [200, "1"]);
      assertEquals(again.bytes, PNG);
      assertEquals(seen.filter((p) => p === "/a.png").length, 1, "fetched once");
      const jpeg = await get("open", at("/b.jpg"));
      assertEquals([jpeg.status, jpeg.headers.get("content-type")], [200, "image/jpeg"]);
      const hop = await get("open", at("/hop"));
      assertEquals([hop.status, hop.bytes], [200, PNG]);
    });

    await t.step("not an image: SVG, a page called .png, a page", async () => {
      for (const path of ["/c.svg", "/page.png", "/page.html", "/missing.png"]) {
        const res = await get("open", at(path));
        assertEquals(res.status, 502, path);
        assertEquals(res.json.errors[0].path, "/query/url", path);
        assert(!res.headers.get("content-type")?.startsWith("image/"), path);
      }
    });

    await t.step("too large: by its length, or by what it sends", async () => {
      for (const path of ["/huge.png", "/endless.png"]) {
        const res = await get("open", at(path));
        assertEquals(res.status, 502, path);
        assertStringIncludes(res.json.errors[0].message, "too large", path);
      }
    });

    await t.step("too slow: cut at the time limit", async () => {
      IMAGE_LIMITS.timeoutMs = 500;
      const res = await get("open", at("/slow.png"));
      assertEquals(res.status, 502);
      assertStringIncludes(res.json.errors[0].message, "too long");
    });

    await t.step("a redirect to a refused address is refused", async () => {
      // Only 127.0.0.1 is allowed; 0x7f000002 is 127.0.0.2, loopback and refused.
      const proxy = new ImageProxy(false, { allowAddress: (ip) => ip === "127.0.0.1" });
      assertEquals((await proxy.image(new URL(at("/a.png")))).bytes, PNG);
      const res = await proxy.image(new URL(at("/nothing"))).catch((e) => e);
      assert(!(res instanceof FetchRefused), "a 404 is no refusal");
      const hop = new URL(`http://127.0.0.1:${port}/x`);
      const redirecting = Deno.serve(
        { hostname: "127.0.0.1", port: 0, onListen() {} },
        () => Response.redirect(`http://0x7f000002:${port}/a.png`, 302),
      );
      try {
        hop.port = String(redirecting.addr.port);
        const err = await proxy.image(hop).catch((e) => e);
        assert(err instanceof FetchRefused, String(err));
      } finally {
        await redirecting.shutdown();
      }
    });
  } finally {
    IMAGE_LIMITS.timeoutMs = timeout;
    await strict.close();
    await open.close();
    await site.shutdown();
  }
});

Deno.test("LruCache by weight: the least recently used go first, too heavy is not kept", () => {
  const cache = lruCache<Uint8Array>(Infinity, 60_000, undefined, {
    weigh: (b) => b.length,
    maxWeight: 10,
  });
  cache.set("a", new Uint8Array(4));
  cache.set("b", new Uint8Array(4));
  cache.get("a");
  cache.set("c", new Uint8Array(4));
  assertEquals([cache.get("a")?.length, cache.get("b"), cache.get("c")?.length], [4, undefined, 4]);
  assertEquals(cache.calculatedSize, 8);
  cache.set("d", new Uint8Array(11));
  assertEquals([cache.get("d"), cache.calculatedSize], [undefined, 8]);
});
