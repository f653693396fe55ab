/**
 * soju.im/filehost: a scripted IRC client reads the upload URL from 005 and uploads there with
 * HTTP Basic (its listener login: the password or an app token), as gamja and Goguma do; the
 * file is a web upload (the same limit, types and safe serving). Real ngircd and listener for the
 * token; the uploads go to the app in process.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { EMAIL, PASSWORD, setupBouncer, setupBouncerOn } from "../support/bouncer.ts";
import { startHostileIrc } from "../support/hostile_irc.ts";
import { BouncerClient } from "../support/bouncer_client.ts";
import { startApp } from "../support/app.ts";

const basic = (user: string, password: string) =>
  "Basic " + btoa(String.fromCharCode(...new TextEncoder().encode(`${user}:${password}`)));

/** A small PNG's first bytes (its signature), enough for the type to be known. */
const PNG = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3, 4, 5]);

Deno.test("bouncer: soju.im/FILEHOST takes an IRC client's upload with its login", async (t) => {
  const s = await setupBouncer();
  let c: BouncerClient | undefined;
  try {
    c = await BouncerClient.attach(s.port, `${EMAIL}/${s.cid}@gamja`, PASSWORD);
    await c.waitFor((l) => l.command === "376" || l.command === "422"); // after every 005
    const tokens = c.lines.filter((l) => l.command === "005").flatMap((l) => l.params.slice(1, -1));
    const token = tokens.find((x) => x.startsWith("soju.im/FILEHOST="));
    assert(token, tokens.join(" "));
    const url = new URL(token.slice("soju.im/FILEHOST=".length));
    const path = url.pathname;
    const upload = (headers: Record<string, string>, body: BodyInit | null = PNG) =>
      s.app.request(path, { method: "POST", headers, body });

    await t.step("the URL is absolute, under the base URL", () => {
      assertEquals(url.origin, s.app.deps.config.baseUrl.origin);
    });

    await t.step("OPTIONS says what it takes, to any origin", async () => {
      const res = await s.app.request(path, {
        method: "OPTIONS",
        headers: { origin: "https://gamja.example", "access-control-request-method": "POST" },
      });
      assertEquals(res.status, 204);
      assert(res.headers.get("allow")?.includes("POST"), res.headers.get("allow") ?? "");
      assertEquals(res.headers.get("access-control-allow-origin"), "https://gamja.example");
      assert(/authorization/i.test(res.headers.get("access-control-allow-headers") ?? ""));
    });

    let location = "";
    await t.step("Basic with the listener's login (password): 201 and Location", async () => {
      const res = await upload({
        authorization: basic(`${EMAIL}/${s.cid}@gamja`, PASSWORD),
        "content-type": "image/png",
        "content-disposition": `attachment; filename="dot.png"`,
        // What gamja's page sends: it is served from elsewhere and uploads with fetch().
        origin: "https://gamja.example",
        "sec-fetch-site": "cross-site",
        "sec-fetch-mode": "cors",
      });
      assertEquals(res.status, 201, JSON.stringify(res.body));
      location = res.headers.get("location") ?? "";
      assert(location.startsWith(s.app.deps.config.baseUrl.origin + "/"), location);
      assert(location.endsWith(".png"), location);
      assertEquals(res.headers.get("access-control-allow-origin"), "https://gamja.example");
      assert(/location/i.test(res.headers.get("access-control-expose-headers") ?? ""));
    });

    await t.step("the Location answers GET and HEAD with the file", async () => {
      const got = await s.app.app.request(new URL(location).pathname);
      assertEquals(got.status, 200);
      assertEquals(got.headers.get("content-type"), "image/png");
      assertEquals(new Uint8Array(await got.arrayBuffer()), PNG);
      const head = await s.app.request(new URL(location).pathname, { method: "HEAD" });
      assertEquals(head.status, 200);
      assertEquals(head.headers.get("content-length"), String(PNG.length));
    });

    await t.step("an app token as the password, the bare email as the user", async () => {
      const made = await s.api.post("/api/tokens", { name: "goguma" });
      assertEquals(made.status, 201, JSON.stringify(made.body));
      const res = await upload({
        authorization: basic(EMAIL, made.body.token),
        "content-type": "text/plain",
        "content-disposition": `attachment; filename*=UTF-8''r%C3%A9sum%C3%A9.txt`,
      }, "plain words");
      assertEquals(res.status, 201, JSON.stringify(res.body));
      const file = await s.app.request(new URL(res.headers.get("location")!).pathname);
      assertEquals(file.body, "plain words");
      const stored = await s.app.deps.store.files.page(1, undefined, 10);
      assert(stored.files.some((f) => f.name === "résumé.txt"), JSON.stringify(stored.files));
    });

    await t.step("a page is served as a download that runs nothing", async () => {
      const res = await upload({
        authorization: basic(EMAIL, PASSWORD),
        "content-type": "text/html",
        "content-disposition": `attachment; filename="page.html"`,
      }, "<script>alert(1)</script>");
      assertEquals(res.status, 201);
      const file = await s.app.request(new URL(res.headers.get("location")!).pathname);
      assert(file.headers.get("content-disposition")?.startsWith("attachment"));
      assertEquals(file.headers.get("content-security-policy"), "sandbox");
      assertEquals(file.headers.get("x-content-type-options"), "nosniff");
    });

    await t.step("no login, a wrong one, or only the web session's cookie: 401", async () => {
      const cookie = s.api.cookieHeader;
      assert(cookie, "the web session's cookie");
      const cases: Record<string, string>[] = [
        {},
        { authorization: basic(EMAIL, "wrong password") },
        { authorization: basic("nobody@example.com", PASSWORD) },
        { authorization: "Bearer whatever" },
        { cookie },
      ];
      for (const headers of cases) {
        const res = await upload({ ...headers, "content-type": "image/png" });
        assertEquals(res.status, 401, JSON.stringify(headers));
        // No Basic challenge: a browser would keep the password and send it for other sites.
        assertEquals(res.headers.get("www-authenticate"), null);
      }
    });

    await t.step("a form another site posts (a navigation) is refused", async () => {
      const res = await upload({
        authorization: basic(EMAIL, PASSWORD),
        "content-type": "text/plain",
        origin: "https://evil.example",
        "sec-fetch-site": "cross-site",
        "sec-fetch-mode": "navigate",
      }, "planted");
      assertEquals(res.status, 403);
    });
  } finally {
    c?.close();
    await s.close();
  }
});

Deno.test("filehost: a file past the upload limit is 413, declared or streamed", async () => {
  const t0 = await startApp({ PARLEY_MAX_UPLOAD_SIZE: "1000" });
  try {
    await t0.register("big@example.com");
    const auth = basic("big@example.com", "correct horse battery");
    const path = "/irc/upload";
    const declared = await t0.request(path, {
      method: "POST",
      headers: { authorization: auth, "content-type": "application/octet-stream" },
      body: new Uint8Array(1001),
    });
    assertEquals(declared.status, 413);
    // Streamed without a length: stopped at the byte past the limit.
    const streamed = await t0.request(path, {
      method: "POST",
      headers: { authorization: auth, "content-type": "application/octet-stream" },
      body: ReadableStream.from([new Uint8Array(600), new Uint8Array(600), new Uint8Array(600)]),
    });
    assertEquals(streamed.status, 413);
    const fits = await t0.request(path, {
      method: "POST",
      headers: { authorization: auth, "content-type": "application/octet-stream" },
      body: new Uint8Array(1000),
    });
    assertEquals(fits.status, 201);
    const uid = (await t0.deps.store.users.byEmail("big@example.com"))!.id;
    assertEquals((await t0.deps.store.files.page(uid, undefined, 10)).files.length, 1);
    // Past the user's bound in bytes (the server setting): 413, with the setting's words.
    await t0.deps.store.settings.set({ max_file_bytes_per_user: 1500 });
    const over = await t0.request(path, {
      method: "POST",
      headers: { authorization: auth, "content-type": "application/octet-stream" },
      body: new Uint8Array(600),
    });
    assertEquals([over.status, over.body.errors?.[0]?.path], [413, "/body"]);
    assertEquals(
      over.body.errors[0].message,
      "Your files may take at most 1500 bytes, and this one would make 1600: delete some first.",
    );
    assertEquals((await t0.deps.store.files.page(uid, undefined, 10)).files.length, 1);
  } finally {
    await t0.close();
  }
});

Deno.test("bouncer: a network's upload URL and push key never reach clients", async () => {
  // A hostile network would get the user's login from every client that uploads there.
  const irc = startHostileIrc({
    isupport:
      "NETWORK=Hostile draft/FILEHOST=https://evil.example/d FILEHOST=https://evil.example/p " +
      "soju.im/FILEHOST=https://evil.example/s VAPID=evilkey BOUNCER_NETID=42 CHANTYPES=#",
  });
  const s = await setupBouncerOn(irc.url);
  let c: BouncerClient | undefined;
  try {
    await irc.registered();
    c = await BouncerClient.attach(s.port, `${EMAIL}/${s.cid}@halloy`, PASSWORD);
    await c.waitFor((l) => l.command === "376" || l.command === "422");
    const tokens = c.lines.filter((l) => l.command === "005").flatMap((l) => l.params.slice(1, -1));
    assert(!tokens.join(" ").includes("evil"), tokens.join(" "));
    assertEquals(tokens.filter((t) => t.startsWith("BOUNCER_NETID=")), [`BOUNCER_NETID=${s.cid}`]);
    assert(tokens.includes("NETWORK=Hostile"), tokens.join(" "));
    const upload = tokens.find((t) => t.startsWith("soju.im/FILEHOST="));
    assertEquals(new URL(upload!.split("=")[1]).origin, s.app.deps.config.baseUrl.origin);
  } finally {
    c?.close();
    await s.close();
    await irc.close();
  }
});
