/**
 * The preview caches and the image fetches are shared by every user; what one user does must not
 * show in another's answers, nor use up their previews. Against real servers on loopback: an
 * answer says `X-Cached` only to a user who has had it before; one user's slow images take at most
 * their own share of the fetches (429 with Retry-After past it), and everyone else's previews work.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { startApp } from "../support/app.ts";
import { poll } from "../support/poll.ts";
import { IMAGE_LIMITS } from "../../embed/image_proxy.ts";

/** A 1x1 PNG's first bytes: enough for the type check. */
const PNG = Uint8Array.from([
  ...[0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a],
  ...[0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52, 0, 0, 0, 1, 0, 0, 0, 1, 8, 6, 0, 0, 0],
]);
const PAGE = "<!doctype html><html><head><title>Shared page</title></head><body></body></html>";

Deno.test("embed caches: another user's fill is not revealed", async (t) => {
  const fetched: string[] = [];
  const site = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (req) => {
    const path = new URL(req.url).pathname;
    fetched.push(path);
    if (path === "/page") return new Response(PAGE, { headers: { "content-type": "text/html" } });
    return new Response(PNG, { headers: { "content-type": "image/png" } });
  });
  const a = await startApp({ PARLEY_EMBED_ALLOW_PRIVATE: "1" });
  try {
    const ann = a.client();
    const ben = a.client();
    await ann.register("ann@example.com");
    await ann.post("/api/settings", { open_to_public: true });
    await ben.register("ben@example.com");
    const base = `http://127.0.0.1:${site.addr.port}`;
    for (
      const [what, path] of [
        ["a preview", `/api/embed.json?url=${encodeURIComponent(`${base}/page`)}`],
        ["an image", `/api/embed/image?url=${encodeURIComponent(`${base}/a.png`)}`],
      ]
    ) {
      await t.step(what, async () => {
        const cached = async (client: typeof ann) => {
          const res = await client.get(path);
          assertEquals(res.status, 200);
          return res.headers.get("x-cached");
        };
        const before = fetched.length;
        assertEquals(await cached(ann), null, "Ann's own first look");
        assertEquals(await cached(ann), "1", "Ann's second look is from the cache, and says so");
        // Ben's first look is answered as if nobody had asked before him.
        assertEquals(await cached(ben), null, "Ben is not told that Ann looked");
        assertEquals(await cached(ben), "1", "Ben's own second look");
        assertEquals(fetched.length - before, 1, "the cache is still shared: fetched once");
      });
    }
  } finally {
    await a.close();
    await site.shutdown();
  }
});

Deno.test("embed images: one user's slow images take only their share of the fetches", async () => {
  // Slow images: held until the test lets them go, so nothing here depends on time.
  let release!: () => void;
  const held = new Promise<void>((r) => (release = r));
  const arrived: string[] = [];
  const site = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
    const path = new URL(req.url).pathname;
    arrived.push(path);
    if (path.startsWith("/slow/")) await held;
    return new Response(PNG, { headers: { "content-type": "image/png" } });
  });
  // The held images must outlast the whole test: at the usual 5 s a loaded machine let them time
  // out, freeing their places for more of Mallory's (13 arrived instead of 8 in one full run).
  const timeoutMs = IMAGE_LIMITS.timeoutMs;
  IMAGE_LIMITS.timeoutMs = 600_000;
  const a = await startApp({ PARLEY_EMBED_ALLOW_PRIVATE: "1" });
  const image = (name: string) =>
    `/api/embed/image?url=${encodeURIComponent(`http://127.0.0.1:${site.addr.port}/${name}`)}`;
  const slow: Promise<{ status: number }>[] = [];
  try {
    const mallory = a.client();
    const ann = a.client();
    await ann.register("ann@example.com");
    await ann.post("/api/settings", { open_to_public: true });
    await mallory.register("mallory@example.com");

    // Mallory's page shows as many slow images as there are fetches for everyone.
    // Statuses of those already answered, in the order they came.
    const answered: number[] = [];
    for (let i = 0; i < IMAGE_LIMITS.inFlight; i++) {
      slow.push(mallory.get(image(`slow/${i}.png`)).then((r) => (answered.push(r.status), r)));
    }
    const mine = IMAGE_LIMITS.inFlightPerUser;
    await poll(`${mine} slow images asked for`, () => arrived.length >= mine);

    // Ann's previews work meanwhile.
    const res = await ann.get(image("fast.png"));
    assertEquals(res.status, 200);
    assertEquals(res.headers.get("content-type"), "image/png");

    // The rest of Mallory's are refused at once, telling when to ask again; the remote never sees
    // them.
    const over = await mallory.get(image("slow/another.png"));
    assertEquals(over.status, 429);
    assert(Number(over.headers.get("retry-after")) > 0, "Retry-After in seconds");
    assertEquals(over.body.errors[0].path, "/");
    // Should more arrive (once, in the PostgreSQL pass: 13), the paths and the answers so far
    // tell a fetch sent twice from one that failed early and gave its place back.
    assertEquals(
      arrived.filter((p) => p.startsWith("/slow/")).length,
      mine,
      `${arrived.join(" ")}; answered: ${answered.join(" ")}`,
    );

    // Each of her requests past her share is refused before the held ones are let go: one still
    // on its way (the PostgreSQL pass reads every session from the database) would otherwise find
    // a place they freed and be fetched (9 answered 200 in one CI run).
    await poll(
      "Mallory's requests past her share refused",
      () => answered.length >= IMAGE_LIMITS.inFlight - mine,
    );
    release();
    const statuses = (await Promise.all(slow)).map((r) => r.status);
    assertEquals(statuses.filter((s) => s === 200).length, mine);
    assertEquals(statuses.filter((s) => s === 429).length, IMAGE_LIMITS.inFlight - mine);
    // Once they ended, Mallory may fetch again.
    assertEquals((await mallory.get(image("slow/later.png"))).status, 200);
  } finally {
    release();
    await Promise.allSettled(slow);
    await a.close();
    await site.shutdown();
    IMAGE_LIMITS.timeoutMs = timeoutMs;
  }
});
