/**
 * Hostile requests: body sizes, forwarded addresses, registration races, malformed
 * paths, file modes, runnable uploads, stalled sockets, replayed webhooks, login lockout.
 * Routes are exercised in process with `app.request()`; a real socket where only it shows it.
 */
import { assert, assertEquals, assertStringIncludes } from "../support/assert.ts";
import { captureErrors, startApp } from "../support/app.ts";
import { JSON_BODY_LIMIT } from "../../http/body.ts";
import { botConfigSchema, ensureBot } from "../../irc/bot/bot.ts";
import { openStore } from "../../store/mod.ts";
import { MAX_BUFFERED, TRY_AGAIN_LATER } from "../../routes/events.ts";
import { poll } from "../support/poll.ts";
import { githubSignature } from "../../webhook/github.ts";

/** A body stream that yields `chunk` up to `total` bytes and counts what was pulled from it. */
function countingBody(total: number, chunkSize = 16 * 1024) {
  const state = { pulled: 0, cancelled: false };
  const chunk = new TextEncoder().encode("x".repeat(chunkSize));
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (state.pulled >= total) return controller.close();
      state.pulled += chunk.length;
      controller.enqueue(chunk);
    },
    cancel() {
      state.cancelled = true;
    },
  });
  return { stream, state };
}

Deno.test("hardening: JSON bodies are limited while they stream", async (t) => {
  const a = await startApp();
  try {
    await t.step("a declared Content-Length over the limit is refused before reading", async () => {
      const { stream, state } = countingBody(200 * 1024 * 1024);
      const res = await a.request("/api/user/login", {
        method: "POST",
        body: stream,
        headers: {
          "content-type": "application/json",
          "content-length": String(150 * 1024 * 1024),
        },
        duplex: "half",
      } as RequestInit);
      assertEquals(res.status, 413);
      assertEquals(res.body.errors[0].path, "/body");
      assertStringIncludes(res.body.errors[0].message, String(JSON_BODY_LIMIT));
      assert(state.pulled <= 64 * 1024, `read ${state.pulled} bytes of a refused body`);
    });

    await t.step("a chunked body is cut at the chunk that passes the limit", async () => {
      const { stream, state } = countingBody(200 * 1024 * 1024);
      const res = await a.request("/api/user/register", {
        method: "POST",
        body: stream,
        headers: { "content-type": "application/json" },
        duplex: "half",
      } as RequestInit);
      assertEquals(res.status, 413);
      assertEquals(res.body.errors[0].path, "/body");
      // Stream internals may pull a few chunks ahead; far from the 200 MB offered.
      assert(state.pulled < JSON_BODY_LIMIT + 256 * 1024, `pulled ${state.pulled} bytes`);
      assert(state.cancelled, "the body stream was cancelled");
    });

    await t.step("a body at the limit is still read", async () => {
      const pad = "x".repeat(JSON_BODY_LIMIT - 200);
      const res = await a.post("/api/user/login", { email: "a@example.com", password: "p", pad });
      assertEquals(res.status, 400);
      assertEquals(res.body.errors[0].message, "Invalid email or password.");
    });

    await t.step("sending a message may carry 65,536 escaped characters", async () => {
      const cookie = await a.register("admin@example.com");
      const res = await a.post(
        "/api/connection/irc-none/conversation/%23x/messages",
        { message: "\u0001".repeat(65_536) },
        { cookie },
      );
      // Past the body limit: the 404 of the unknown connection, not a 413.
      assertEquals(res.status, 404);
    });
  } finally {
    await a.close();
  }
});

Deno.test("hardening: upload form fields are small and the form is counted", async (t) => {
  const a = await startApp({ PARLEY_MAX_UPLOAD_SIZE: "5000" });
  try {
    const cookie = await a.register("admin@example.com");
    await t.step("a field other than file may hold at most 1 KB", async () => {
      const form = new FormData();
      form.set("file", new File(["hello"], "hello.txt", { type: "text/plain" }));
      form.set("id", "i".repeat(1025));
      const res = await a.request("/api/files", {
        method: "POST",
        body: form,
        headers: { cookie },
      });
      assertEquals(res.status, 400);
      assertEquals(res.body.errors[0].path, "/body/id");
      const urlencoded = await a.request("/api/files", {
        method: "POST",
        body: new URLSearchParams({ file: "text", write_only: "y".repeat(2000) }),
        headers: { cookie },
      });
      assertEquals(urlencoded.status, 400);
      assertEquals(urlencoded.body.errors[0].path, "/body/write_only");
      const ok = new FormData();
      ok.set("file", new File(["hello"], "hello.txt", { type: "text/plain" }));
      ok.set("write_only", "y".repeat(1024));
      const fine = await a.request("/api/files", { method: "POST", body: ok, headers: { cookie } });
      assertEquals(fine.status, 200);
    });

    await t.step("a form without Content-Length is cut once past the limit", async () => {
      const prefix = new TextEncoder().encode("write_only=");
      const { stream: tail, state } = countingBody(20 * 1024 * 1024);
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(prefix);
        },
        async pull(controller) {
          const reader = tail.getReader();
          const { done, value } = await reader.read();
          reader.releaseLock();
          if (done) controller.close();
          else controller.enqueue(value);
        },
        cancel: () => tail.cancel(),
      });
      const res = await a.request("/api/files", {
        method: "POST",
        body,
        headers: { cookie, "content-type": "application/x-www-form-urlencoded" },
        duplex: "half",
      } as RequestInit);
      // Convos's status and wording for an upload over the limit (web-files.t:145).
      assertEquals(res.status, 400);
      assertEquals(res.body.errors[0].message, "Maximum message size exceeded");
      assert(state.pulled < 1024 * 1024, `pulled ${state.pulled} bytes`);
    });
  } finally {
    await a.close();
  }
});

Deno.test("hardening: a stranger cannot lock the owner out of their account", async (t) => {
  const a = await startApp();
  try {
    await a.register("owner@example.com");
    const login = (password: string, addr: string, email = "owner@example.com") =>
      a.post("/api/user/login", { email, password }, { addr });
    await t.step("twelve wrong passwords from one address slow that address down", async () => {
      const statuses = [];
      for (let i = 0; i < 12; i++) {
        statuses.push((await login(`wrong ${i}`, "203.0.113.66")).status);
      }
      assertEquals(statuses.slice(0, 5), [400, 400, 400, 400, 400]);
      assert(statuses.includes(429), `statuses: ${statuses}`);
      const refused = await login("correct horse battery", "203.0.113.66");
      assertEquals(refused.status, 429);
      assert(Number(refused.headers.get("retry-after")) >= 1);
    });
    await t.step("the owner logs in from another address at once", async () => {
      const res = await login("correct horse battery", "198.51.100.7");
      assertEquals(res.status, 200);
      assertEquals(res.body.email, "owner@example.com");
    });
    await t.step("one address trying many emails runs out of its budget", async () => {
      for (let i = 0; i < 50; i++) {
        const res = await login("wrong password", "203.0.113.99", `u${i}@example.com`);
        assertEquals(res.status, 400, `attempt ${i}`);
      }
      assertEquals((await login("wrong password", "203.0.113.99", "new@example.com")).status, 429);
      assertEquals((await login("correct horse battery", "198.51.100.8")).status, 200);
    });
  } finally {
    await a.close();
  }
});

Deno.test("hardening: behind a proxy the client is X-Forwarded-For's last hop", async () => {
  const a = await startApp({ PARLEY_REVERSE_PROXY: "1" });
  try {
    // The proxy (socket peer 127.0.0.1) appends the real address; the client forges the rest.
    const login = (email: string, xff: string) =>
      a.request("/api/user/login", {
        method: "POST",
        body: JSON.stringify({ email, password: "wrong password" }),
        headers: { "content-type": "application/json", "x-forwarded-for": xff },
      });
    for (let i = 0; i < 50; i++) {
      const res = await login(`u${i}@example.com`, `10.9.${i}.1, 192.0.2.10`);
      assertEquals(res.status, 400, `attempt ${i}`);
    }
    const forged = await login("x@example.com", "10.0.0.1, 192.0.2.66, 192.0.2.10");
    assertEquals(forged.status, 429, "a forged first hop does not make a new client");
    const framed = await login("x@example.com", "192.0.2.10, 192.0.2.11");
    assertEquals(framed.status, 400, "writing another client's address first does not throttle us");
  } finally {
    await a.close();
  }
});

Deno.test("hardening: five concurrent first registrations make exactly one admin", async () => {
  const a = await startApp();
  try {
    {
      const results = await Promise.all(
        [1, 2, 3, 4, 5].map((i) =>
          a.post("/api/user/register", { email: `p${i}@example.com`, password: "long enough pw" })
        ),
      );
      const admins = results.filter((r) => r.status === 200 && r.body.roles.includes("admin"));
      assertEquals(admins.length, 1, JSON.stringify(results.map((r) => r.body)));
      for (const r of results.filter((r) => r.status !== 200)) {
        // Convos's answer to a registration without an invite (web-register-invite-only.t:57).
        assertEquals(r.status, 401);
        assertEquals(r.body.errors[0].message, "Convos registration is not open to public.");
      }
      const admin = await a.deps.store.users.withRole("admin");
      assertEquals(admin.length, 1);
      assertEquals((await a.deps.store.users.list(undefined, 10)).length, 1);
    }
  } finally {
    await a.close();
  }
});

Deno.test("hardening: a bot.json naming the admin does not open registration", async () => {
  const a = await startApp();
  try {
    await a.register("admin@example.com");
    const bot = await ensureBot(a.deps, botConfigSchema.parse({ email: "admin@example.com" }));
    assertEquals(bot.user.roles, ["admin", "bot"]);
    const res = await a.post("/api/user/register", {
      email: "stranger@example.com",
      password: "long enough pw",
    });
    assertEquals(res.status, 401);
    assertEquals(res.body.errors[0].message, "Convos registration is not open to public.");
    assertEquals(await a.deps.store.users.byEmail("stranger@example.com"), undefined);
  } finally {
    await a.close();
  }
});

Deno.test("hardening: a bot created first does not stop the first person becoming admin", async () => {
  const a = await startApp();
  try {
    await ensureBot(a.deps, botConfigSchema.parse({ email: "bot@example.com" }));
    const res = await a.post("/api/user/register", {
      email: "first@example.com",
      password: "long enough pw",
    });
    assertEquals(res.status, 200);
    assertEquals(res.body.roles, ["admin"]);
    const second = await a.post("/api/user/register", {
      email: "second@example.com",
      password: "long enough pw",
    });
    assertEquals(second.status, 401);
  } finally {
    await a.close();
  }
});

Deno.test("hardening: malformed percent-encoding is a 400 or 404, never a 500", async (t) => {
  const a = await startApp();
  try {
    const cookie = await a.register("admin@example.com");
    await t.step("bad escapes in any path", async () => {
      const paths = [
        "/%",
        "/%E0%A4%A",
        "/%zz",
        "/api/%",
        "/api/%E0%A4%A",
        "/api/user/%",
        "/api/files/1/%",
        "/chat/%",
        "/dist/%",
        "/api/user/%E0%A4%A/invite",
        "/api/notifications?before=%",
      ];
      const { value: results, lines } = await captureErrors(() =>
        Promise.all(paths.map((p) => a.request(p, { headers: { cookie } })))
      );
      for (const [i, res] of results.entries()) {
        assert([400, 404, 501].includes(res.status), `${paths[i]}: ${res.status}`);
        assertEquals(typeof res.body.errors[0].message, "string", paths[i]);
      }
      const posted = await captureErrors(() =>
        Promise.all(
          ["/api/user/%", "/api/user/%E0%A4%A/invite"].map((p) =>
            a.request(p, { method: "POST", headers: { cookie }, body: "{}" })
          ),
        )
      );
      for (const res of posted.value) assert([400, 404].includes(res.status), `${res.status}`);
      // A cursor with a bad escape names no file: Convos's empty page (web-files.t:168).
      const cursor = await a.request("/api/files?after=%E0%A4%A", { headers: { cookie } });
      assertEquals([cursor.status, cursor.body], [200, { files: [] }]);
      assertEquals([...lines, ...posted.lines], [], "nothing is logged as an error");
    });
    await t.step("a user's email in the path is decoded once", async () => {
      // %2540 is "%40" once decoded: an email with a literal "%40", not "@".
      const res = await a.request("/api/user/admin%2540example.com", {
        method: "POST",
        headers: { cookie, "content-type": "application/json" },
        body: "{}",
      });
      assertEquals(res.status, 400);
      assertEquals(res.body.errors[0].path, "/params/email");
      const plain = await a.request("/api/user/admin%40example.com", {
        method: "POST",
        headers: { cookie, "content-type": "application/json" },
        body: JSON.stringify({ highlight_keywords: ["x"] }),
      });
      assertEquals(plain.status, 200);
    });
  } finally {
    await a.close();
  }
});

/** The permission bits of a file. */
const modeOf = (path: string) => ((Deno.statSync(path).mode ?? 0) & 0o777).toString(8);

Deno.test("hardening: databases and uploads are private to Parley's user", async (t) => {
  const a = await startApp();
  try {
    const cookie = await a.register("admin@example.com");
    await t.step("parley.db, search.db and their -wal and -shm are 0600", () => {
      for (const name of ["parley.db", "search.db"]) {
        for (const suffix of ["", "-wal", "-shm"]) {
          assertEquals(modeOf(`${a.home}/${name}${suffix}`), "600", name + suffix);
        }
      }
    });
    await t.step("an uploaded file is 0600", async () => {
      const form = new FormData();
      form.set("file", new File(["secret"], "s.txt", { type: "text/plain" }));
      const res = await a.request("/api/files", {
        method: "POST",
        body: form,
        headers: { cookie },
      });
      assertEquals(res.status, 200);
      const file = res.body.files[0];
      assertEquals(modeOf(`${a.home}/files/${file.uid}/${file.id}`), "600");
    });
  } finally {
    await a.close();
  }
});

Deno.test("hardening: an open data folder is reported and old database files are narrowed", async () => {
  const home = await Deno.makeTempDir({ prefix: "parley-mode-" });
  try {
    await Deno.chmod(home, 0o755);
    // A database left by an older Parley, created with the umask's mode.
    await Deno.writeFile(`${home}/parley.db`, new Uint8Array(0), { mode: 0o644 });
    await Deno.chmod(`${home}/parley.db`, 0o644);
    const { value: store, lines } = await captureErrors(() => openStore(home));
    await store.close();
    assert(
      lines.some((l) => l.includes("WARN") && l.includes("data folder") && l.includes(home)),
      lines.join("\n"),
    );
    assertEquals(modeOf(`${home}/parley.db`), "600");
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("hardening: uploads that could run are served so that they cannot", async (t) => {
  const a = await startApp();
  try {
    const cookie = await a.register("admin@example.com");
    const upload = async (name: string, type: string) => {
      const form = new FormData();
      form.set("file", new File(["alert(document.cookie)"], name, { type }));
      const res = await a.request("/api/files", {
        method: "POST",
        body: form,
        headers: { cookie },
      });
      assertEquals(res.status, 200, name);
      // The public URL (/file/...) redirects to the API's; followed as a browser does.
      const link = await a.request(new URL(res.body.files[0].url).pathname);
      assertEquals(link.status, 302, name);
      return await a.request(link.headers.get("location")!);
    };
    await t.step("HTML, XHTML and SVG are sandboxed attachments of their own type", async () => {
      // Their own type as Convos sends them (web-files.t:105-129). As attachments they are not
      // shown; under sandbox nothing of them runs in this origin should a browser show them;
      // under nosniff no <script src> or stylesheet link loads them (only JS and CSS types may).
      for (
        const [name, type] of [
          ["x.html", "text/html"],
          ["x.xhtml", "application/xhtml+xml"],
          ["x.svg", "image/svg+xml"],
        ]
      ) {
        const res = await upload(name, type);
        assertEquals(res.headers.get("content-type")!.split(";")[0], type, name);
        assertEquals(res.headers.get("x-content-type-options"), "nosniff", name);
        assertEquals(res.headers.get("content-security-policy"), "sandbox", name);
        assert(res.headers.get("content-disposition")!.startsWith("attachment;"), name);
      }
    });
    await t.step("scripts, CSS and XML are octet-stream downloads", async () => {
      for (
        const [name, type] of [
          ["x.js", "text/javascript"],
          ["x.mjs", "application/javascript"],
          ["x.css", "text/css"],
          ["x.xml", "application/xml"],
          ["x.xsl", "text/xsl"],
          ["x.bin", "application/x-unknown"],
        ]
      ) {
        const res = await upload(name, type);
        assertEquals(res.headers.get("content-type"), "application/octet-stream", name);
        assertEquals(res.headers.get("x-content-type-options"), "nosniff", name);
        assert(res.headers.get("content-disposition")!.startsWith("attachment;"), name);
      }
    });
    await t.step("PDFs are attachments; text and pictures stay inline", async () => {
      const pdf = await upload("x.pdf", "application/pdf");
      assertEquals(pdf.headers.get("content-type"), "application/pdf");
      assert(pdf.headers.get("content-disposition")!.startsWith("attachment;"));
      const txt = await upload("x.txt", "text/plain");
      // Inline as Convos serves them: no disposition (web-files.t:88).
      assertEquals(txt.headers.get("content-type"), "text/plain;charset=UTF-8");
      assertEquals(txt.headers.get("content-disposition"), null);
      const png = await upload("x.png", "image/png");
      assertEquals(png.headers.get("content-type"), "image/png");
      assertEquals(png.headers.get("content-disposition"), null);
    });
    await t.step("the page may run the bundle only, not any script of its origin", async () => {
      const page = await a.request("/chat", { headers: { host: "parley.example:8443" } });
      const csp = page.headers.get("content-security-policy")!;
      const scriptSrc = csp.split("; ").find((d) => d.startsWith("script-src"));
      assertEquals(scriptSrc, "script-src http://parley.example:8443/dist/");
      const forged = await a.request("/", { headers: { host: "x; script-src *" } });
      const forgedSrc = forged.headers.get("content-security-policy")!.split("; ")
        .find((d) => d.startsWith("script-src"));
      assertEquals(forgedSrc, "script-src http://127.0.0.1:3000/dist/");
    });
  } finally {
    await a.close();
  }
});

/** Reads server frames (unmasked) from `bytes`; returns the close frame's code, if one came. */
function closeCode(bytes: Uint8Array): number | undefined {
  let at = 0;
  while (at + 2 <= bytes.length) {
    const opcode = bytes[at] & 0x0f;
    let len = bytes[at + 1] & 0x7f;
    let head = 2;
    if (len === 126) {
      len = (bytes[at + 2] << 8) | bytes[at + 3];
      head = 4;
    } else if (len === 127) {
      len = Number(new DataView(bytes.buffer, bytes.byteOffset + at + 2, 8).getBigUint64(0));
      head = 10;
    }
    if (at + head + len > bytes.length) return undefined;
    if (opcode === 8) return (bytes[at + head] << 8) | bytes[at + head + 1];
    at += head + len;
  }
  return undefined;
}

Deno.test("hardening: an /events client that stops reading is closed, not buffered for", async () => {
  const a = await startApp();
  const server = await a.listen();
  const conn = await Deno.connect({ hostname: "127.0.0.1", port: server.port });
  try {
    const cookie = await a.register("admin@example.com");
    const uid = (await a.deps.store.users.byEmail("admin@example.com"))!.id;
    await conn.write(new TextEncoder().encode([
      "GET /events HTTP/1.1",
      `Host: 127.0.0.1:${server.port}`,
      "Upgrade: websocket",
      "Connection: Upgrade",
      "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==",
      "Sec-WebSocket-Version: 13",
      `Cookie: ${cookie}`,
      "",
      "",
    ].join("\r\n")));
    await poll("the socket's subscription", () => a.deps.bus.listenerCount(uid) === 1);
    // The client reads nothing from here on while 40 MB of events are published.
    const text = "x".repeat(64 * 1024);
    for (let i = 0; i < 640 && a.deps.bus.listenerCount(uid) > 0; i++) {
      a.deps.bus.publish(uid, {
        event: "message",
        connection_id: "irc-x",
        conversation_id: "#x",
        from: "bob",
        message: text,
        ts: "2026-11-22T10:00:00.000000Z",
        type: "private",
        highlight: false,
        msgid: "1.1",
      });
      if (i % 8 === 0) await new Promise((r) => setTimeout(r, 1));
    }
    await poll("the slow socket's unsubscription", () => a.deps.bus.listenerCount(uid) === 0);
    // Now read what was sent: a bounded amount, ending with a 1013 close.
    let received = new Uint8Array(0);
    const buf = new Uint8Array(256 * 1024);
    let code: number | undefined;
    while (code === undefined) {
      const n = await conn.read(buf);
      if (n === null) break;
      const next = new Uint8Array(received.length + n);
      next.set(received);
      next.set(buf.subarray(0, n), received.length);
      received = next;
      if (n < buf.length) {
        // Frames start after the 101 answer's blank line.
        const head = new TextDecoder().decode(received.subarray(0, 1024)).indexOf("\r\n\r\n");
        code = closeCode(received.subarray(head + 4));
      }
    }
    const total = received.length;
    console.log(`events: stalled consumer received ${total} bytes of 40 MB published`);
    assertEquals(code, TRY_AGAIN_LATER);
    assert(total < MAX_BUFFERED + 12 * 1024 * 1024, `received ${total} bytes of 40 MB`);
  } finally {
    conn.close();
    await server.stop();
    await a.close();
  }
});

Deno.test("hardening: a replayed webhook delivery is refused", async () => {
  const a = await startApp();
  try {
    await a.register("admin@example.com");
    const config = botConfigSchema.parse({
      email: "bot@example.com",
      webhooks: {
        github: {
          secret: "webhook secret",
          // Routed nowhere: the replay check comes before delivery, so no IRC is needed.
          routes: [{ repository: "owner/other", events: ["issues"], to: "irc-x/#y" }],
        },
      },
    });
    a.deps.bot = await ensureBot(a.deps, config);
    const body = JSON.stringify({
      action: "opened",
      repository: { full_name: "owner/name" },
      sender: { login: "alice" },
      issue: { number: 1, title: "t", html_url: "https://github.com/owner/name/issues/1" },
    });
    const signature = await githubSignature("webhook secret", new TextEncoder().encode(body));
    const post = (delivery: string) =>
      a.request("/api/webhook/github", {
        method: "POST",
        body,
        headers: {
          "content-type": "application/json",
          "x-github-event": "issues",
          "x-github-delivery": delivery,
          "x-hub-signature-256": signature,
        },
      });
    assertEquals((await post("72d3162e-cc78-11e3-81ab-4c9367dc0958")).status, 200);
    const replay = await post("72d3162e-cc78-11e3-81ab-4c9367dc0958");
    assertEquals(replay.status, 409);
    assertEquals(replay.body.errors[0].path, "/body");
    const newId = await post("00000000-0000-0000-0000-000000000000");
    assertEquals(newId.status, 409, "the delivery id is not signed: a new one does not help");
  } finally {
    await a.close();
  }
});
