/** safeFetch against a real local HTTP server: redirects re-checked, limits, connect-time policy. */
import { assert, assertEquals, assertStringIncludes } from "../../support/assert.ts";
import { FetchFailed, FetchRefused, safeFetch } from "../../../embed/safe_fetch.ts";

/** Awaits a rejection of the given class, whose message includes `part`. */
async function rejects(
  fn: () => Promise<unknown>,
  cls: new (...a: never[]) => Error,
  part = "",
  what = "",
): Promise<void> {
  try {
    await fn();
  } catch (err) {
    assert(err instanceof cls, `${what}: expected ${cls.name}, got ${String(err)}`);
    assertStringIncludes(err.message, part);
    return;
  }
  throw new Error(`${what}: expected a rejection`);
}

// Only 127.0.0.1 is allowed here; every other address (127.0.0.2 too) is refused as in production.
const onlyHere = (ip: string) => ip === "127.0.0.1";

Deno.test("safeFetch: pages, redirects, limits and the address policy", async (t) => {
  const seen: string[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (req) => {
    const url = new URL(req.url);
    seen.push(`${url.pathname} host=${req.headers.get("host")}`);
    switch (url.pathname) {
      case "/page":
        return new Response("<title>Hi</title>", { headers: { "content-type": "text/html" } });
      case "/chunked":
        return new Response(
          new ReadableStream({
            start(c) {
              c.enqueue(new TextEncoder().encode("one,"));
              c.enqueue(new TextEncoder().encode("two"));
              c.close();
            },
          }),
        );
      case "/big":
        return new Response("x".repeat(5000));
      case "/hop":
        return Response.redirect(new URL(url.searchParams.get("to")!, req.url), 302);
      case "/loop":
        return Response.redirect(new URL("/loop", req.url), 301);
      case "/slow":
        // Never answers while the client waits; ends once the client has gone.
        return new Promise<Response>((resolve) =>
          req.signal.addEventListener("abort", () => resolve(new Response("late")))
        );
    }
    return new Response("nope", { status: 404 });
  });
  const port = server.addr.port;
  const base = `http://127.0.0.1:${port}`;
  try {
    await t.step("reads a page", async () => {
      const res = await safeFetch(new URL(`${base}/page`), { allowAddress: onlyHere });
      assertEquals(res.status, 200);
      assertEquals(new TextDecoder().decode(res.body), "<title>Hi</title>");
      assertEquals(res.headers.get("content-type"), "text/html");
    });

    await t.step("decodes a chunked body", async () => {
      const res = await safeFetch(new URL(`${base}/chunked`), { allowAddress: onlyHere });
      assertEquals(new TextDecoder().decode(res.body), "one,two");
    });

    await t.step("keeps at most maxBytes", async () => {
      const res = await safeFetch(new URL(`${base}/big`), {
        allowAddress: onlyHere,
        maxBytes: 1000,
      });
      assertEquals([res.body.length, res.truncated], [1000, true]);
    });

    await t.step("follows a redirect and re-checks its target", async () => {
      const ok = await safeFetch(new URL(`${base}/hop?to=/page`), { allowAddress: onlyHere });
      assertEquals(ok.url.pathname, "/page");
      seen.length = 0;
      // 0x7f000002 is 127.0.0.2: loopback, reachable on Linux, and refused by the policy.
      await rejects(
        () =>
          safeFetch(new URL(`${base}/hop?to=http://0x7f000002:${port}/page`), {
            allowAddress: onlyHere,
          }),
        FetchRefused,
      );
      assertEquals(seen, [`/hop host=127.0.0.1:${port}`], "the private target was never asked");
    });

    await t.step("stops after maxRedirects", async () => {
      seen.length = 0;
      await rejects(
        () => safeFetch(new URL(`${base}/loop`), { allowAddress: onlyHere, maxRedirects: 3 }),
        FetchFailed,
        "Too many redirects",
      );
      assertEquals(seen.length, 4);
    });

    await t.step("connects to the checked address with the name as Host", async () => {
      const asked: string[] = [];
      const res = await safeFetch(new URL(`http://preview.test:${port}/page`), {
        allowAddress: onlyHere,
        resolve: (host) => {
          asked.push(host);
          return Promise.resolve(["127.0.0.1"]);
        },
      });
      assertEquals(res.status, 200);
      assertEquals(asked, ["preview.test"]);
      assertEquals(seen[seen.length - 1], `/page host=preview.test:${port}`);
    });

    await t.step("one refused address among the resolved ones refuses the name", async () => {
      seen.length = 0;
      await rejects(
        () =>
          safeFetch(new URL(`http://mixed.test:${port}/page`), {
            allowAddress: onlyHere,
            resolve: () => Promise.resolve(["127.0.0.1", "10.0.0.1"]),
          }),
        FetchRefused,
      );
      assertEquals(seen, []);
    });

    await t.step("refuses loopback by default, in every spelling", async () => {
      seen.length = 0;
      for (
        const u of [
          `${base}/page`,
          `http://2130706433:${port}/page`,
          `http://0177.0.0.1:${port}/page`,
          `http://0x7f.0.0.1:${port}/page`,
          `http://127.1:${port}/page`,
          `http://[::ffff:127.0.0.1]:${port}/page`,
          `http://[::1]:${port}/page`,
          `http://localhost:${port}/page`,
        ]
      ) {
        await rejects(() => safeFetch(new URL(u)), FetchRefused, "", u);
      }
      assertEquals(seen, []);
    });

    await t.step("refuses other schemes and credentials", async () => {
      await rejects(() => safeFetch(new URL("ftp://example.com/")), FetchRefused);
      await rejects(() => safeFetch(new URL("file:///etc/passwd")), FetchRefused);
      await rejects(
        () => safeFetch(new URL(`http://u:p@127.0.0.1:${port}/`), { allowAddress: onlyHere }),
        FetchRefused,
      );
    });

    await t.step("gives up on a page that does not answer", async () => {
      await rejects(
        () => safeFetch(new URL(`${base}/slow`), { allowAddress: onlyHere, timeoutMs: 300 }),
        FetchFailed,
        "too long",
      );
    });
  } finally {
    await server.shutdown();
  }
  assert(true);
});
