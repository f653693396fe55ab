// deno-lint-ignore-file no-explicit-any -- API answers are read field by field
/**
 * What the single binary would miss. `deno compile` embeds the module graph it can see from
 * main.ts and what scripts/compile.ts's EMBEDDED list names; a module loaded by a computed
 * specifier (a worker's URL), or a folder read at run time and left out of the list, is missing
 * from the binary and fails only when a user first needs it. The binary's runtime cannot be run
 * here, so this test builds a copy of ONLY those files (the npm packages come from the usual
 * cache: they are not the question) and runs Parley from it, through every part that loads on
 * first use: argon2 (register, log in), prom-client (`/metrics`), busboy (an upload), the link
 * preview's HTML reader, the search indexer's and the IRC socket's worker threads, web-push (a
 * push to a subscription), the PostgreSQL client (`store copy`, then the daemon on PostgreSQL)
 * and the importers (`import convos`, `import thelounge`, `import znc`).
 */
import { dirname, join } from "node:path";
import { assert, assertEquals, assertStringIncludes } from "../support/assert.ts";
import { ApiClient } from "../support/api.ts";
import { startServer } from "../support/server.ts";
import { startIrcServer } from "../support/ngircd.ts";
import { RawIrcClient } from "../support/irc_client.ts";
import { startPostgres } from "../support/postgres.ts";
import { poll } from "../support/poll.ts";
import { freePort } from "../support/ports.ts";
import { EMBEDDED } from "../../scripts/compile.ts";

const ROOT = new URL("../..", import.meta.url).pathname;
const FIXTURES = join(ROOT, "tests/fixtures");

/** The project's own files in `deno info --json main.ts`'s graph, relative to the root. */
async function moduleGraph(): Promise<string[]> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", "main.ts"],
    cwd: ROOT,
    stdout: "piped",
    stderr: "inherit",
  }).output();
  assert(out.success, "deno info main.ts");
  const info = JSON.parse(new TextDecoder().decode(out.stdout)) as {
    modules: { specifier: string; error?: string }[];
  };
  const root = new URL(ROOT, "file:///").href;
  return info.modules.map((m) => m.specifier).filter((s) => s.startsWith(root))
    .map((s) => decodeURIComponent(s.slice(root.length)));
}

async function copyTree(from: string, to: string): Promise<void> {
  const info = await Deno.stat(from);
  if (!info.isDirectory) {
    await Deno.mkdir(dirname(to), { recursive: true });
    await Deno.copyFile(from, to);
    return;
  }
  await Deno.mkdir(to, { recursive: true });
  for await (const e of Deno.readDir(from)) await copyTree(join(from, e.name), join(to, e.name));
}

/**
 * A folder with what the binary would hold, and a `parley` script that runs it. The listed worker
 * modules are taken as files, not as roots of graphs of their own: the list names what they
 * import, and this holds it to that. deno.json and deno.lock come along only to resolve the npm
 * packages, as the binary has them.
 */
async function binaryCopy(): Promise<{ dir: string; bin: string }> {
  const dir = await Deno.makeTempDir({ prefix: "parley-binary-" });
  const files = new Set([...await moduleGraph(), ...EMBEDDED, "deno.json", "deno.lock"]);
  for (const f of files) await copyTree(join(ROOT, f), join(dir, f));
  const bin = join(dir, "parley");
  const q = (s: string) => `'${s.replaceAll("'", "'\\''")}'`;
  await Deno.writeTextFile(
    bin,
    `#!/bin/sh\nexec ${q(Deno.execPath())} run -A --v8-flags=--expose-gc ` +
      `--config ${q(join(dir, "deno.json"))} ${q(join(dir, "main.ts"))} "$@"\n`,
  );
  await Deno.chmod(bin, 0o755);
  return { dir, bin };
}

/** Runs the copy's `parley` command. */
async function run(bin: string, args: string[], env: Record<string, string>) {
  const out = await new Deno.Command(bin, {
    args,
    env: { NO_COLOR: "1", PARLEY_UPDATE_URL: "", ...env },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder();
  return { code: out.code, stdout: text.decode(out.stdout), stderr: text.decode(out.stderr) };
}

/** A multipart body with one file, as a browser sends an upload. */
function uploadForm(name: string, data: string): FormData {
  const form = new FormData();
  form.append("file", new Blob([data], { type: "text/plain" }), name);
  return form;
}

function b64url(bytes: Uint8Array): string {
  return btoa(String.fromCharCode(...bytes)).replace(/\+/g, "-").replace(/\//g, "_")
    .replace(/=+$/, "");
}

/** A browser's keys for a push subscription. */
async function pushKeys() {
  const pair = await crypto.subtle.generateKey({ name: "ECDH", namedCurve: "P-256" }, true, [
    "deriveBits",
  ]) as CryptoKeyPair;
  const raw = new Uint8Array(await crypto.subtle.exportKey("raw", pair.publicKey));
  return { p256dh: b64url(raw), auth: b64url(crypto.getRandomValues(new Uint8Array(16))) };
}

/** Lines a missing module or file leaves in a log. */
const MISSING = /Module not found|Cannot find module|No such file|NotFound|failed to load/i;

Deno.test("Parley runs from only what the compiled binary would hold", async (t) => {
  const { dir, bin } = await binaryCopy();
  const home = await Deno.makeTempDir({ prefix: "parley-binary-home-" });
  try {
    await exercise(t, bin, home);
  } finally {
    await Deno.remove(home, { recursive: true }).catch(() => {});
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
});

/** Runs every part that loads on first use from the copy's `parley`, with data folder `home`. */
async function exercise(t: Deno.TestContext, bin: string, home: string) {
  const irc = await startIrcServer();
  // A page to preview on loopback, and a push service port that refuses (web-push loads first).
  const page = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, () =>
    new Response(
      "<!doctype html><html><head><title>Preview me</title>" +
        '<meta property="og:description" content="from the copy"></head><body></body></html>',
      { headers: { "content-type": "text/html; charset=utf-8" } },
    ));
  const server = await startServer({
    binary: bin,
    home,
    env: { PARLEY_EMBED_ALLOW_PRIVATE: "1", PARLEY_TEST_FAST_IRC: "1", PARLEY_METRICS: "1" },
  });
  let peer: RawIrcClient | undefined;
  try {
    const api = new ApiClient(server.url);

    await t.step("the web client", async () => {
      assertEquals((await api.get("/chat")).status, 200);
      const entry = await api.get("/dist/app.js");
      assertEquals(entry.status, 200);
      // The chunks the entry imports, and those of the screens it loads on demand, are there too.
      const chunks = [...String(entry.body).matchAll(/["']\.\/([\w-]+\.js)["']/g)].map((m) => m[1]);
      assert(chunks.some((c) => c.startsWith("Admin-")), `no Admin chunk in ${chunks}`);
      for (const chunk of chunks) {
        assertEquals((await api.get(`/dist/${chunk}`)).status, 200, chunk);
      }
      assertEquals((await api.get("/api/i18n/de")).status, 200);
    });

    await t.step("prom-client: /metrics, and the probes", async () => {
      const metrics = await api.get("/metrics");
      assertEquals(metrics.status, 200);
      assert(String(metrics.body).includes("parley_irc_connections"), "parley's own metrics");
      assert(String(metrics.body).includes("nodejs_eventloop_lag_seconds"), "the defaults");
      assertEquals((await api.get("/healthz")).status, 200);
      assertEquals((await api.get("/readyz")).status, 200);
    });

    await t.step("argon2: register and log in", async () => {
      await api.register("admin@example.com");
      const again = new ApiClient(server.url);
      const me = await again.login("admin@example.com");
      assertEquals(me.email, "admin@example.com");
    });

    await t.step("busboy: an upload", async () => {
      const res = await api.post("/api/files", uploadForm("hello.txt", "hello from the copy"));
      assertEquals(res.status, 200, JSON.stringify(res.body));
      // The file's link leads to the API's URL of the file.
      const link = await api.get(new URL(res.body.files[0].url).pathname);
      assertEquals(link.status, 302);
      const file = await api.get(link.headers.get("location")!);
      assertEquals(file.status, 200);
      assertStringIncludes(String(file.body), "hello from the copy");
    });

    await t.step("htmlparser2: a link preview", async () => {
      const res = await api.get(
        `/api/embed.json?url=${encodeURIComponent(`http://127.0.0.1:${page.addr.port}/`)}`,
      );
      assertEquals(res.status, 200, JSON.stringify(res.body));
      assertEquals(res.body.title, "Preview me");
    });

    await t.step("the IRC socket thread, and web-push for a message while away", async () => {
      const nick = "copyuser";
      const res = await api.post("/api/connections", { url: `${irc.url}?nick=${nick}` });
      assertEquals(res.status, 200, JSON.stringify(res.body));
      const id = res.body.connection_id;
      await poll("the connection to be connected", async () => {
        const list = await api.get("/api/connections");
        return list.body.connections.find((c: any) => c.connection_id === id)?.state ===
          "connected";
      });
      // A subscription whose push service refuses: sending loads web-push, then fails to connect.
      const refused = freePort();
      const sub = await api.post("/api/push/subscriptions", {
        endpoint: `https://127.0.0.1:${refused}/push/1`,
        keys: await pushKeys(),
      });
      assertEquals(sub.status, 201, JSON.stringify(sub.body));
      peer = await RawIrcClient.connect(irc.port, "peer");
      peer.send(`PRIVMSG ${nick} :are you there?`);
      // web-push builds the request, then the push service cannot be reached; a web-push that
      // does not load is "push failed" instead.
      const attempt = await poll(
        "a push attempt",
        () =>
          server.output().split("\n").find((l) => /push service unreachable|push failed/.test(l)),
      );
      assertStringIncludes(attempt, "push service unreachable");
    });

    await t.step("the search indexer's worker, started by the first stored messages", async () => {
      const index = await poll(
        "the search index",
        () =>
          server.output().split("\n").find((l) =>
            /search index open|search indexer failed/.test(l)
          ),
      );
      assertStringIncludes(index, "search index open");
    });
  } finally {
    await peer?.close();
    await server.stop();
    await page.shutdown();
    await irc.close();
  }
  assert(!MISSING.test(server.output()), server.output());

  await t.step("the importers", async () => {
    // The Lounge's and ZNC's users have no email: they get one at the given domain.
    const imports = [
      ["convos"],
      ["thelounge", "--domain", "example.org"],
      ["znc", "--domain", "example.org"],
    ];
    for (const [kind, ...extra] of imports) {
      const target = await Deno.makeTempDir({ prefix: `parley-binary-${kind}-` });
      try {
        const args = ["import", kind, join(FIXTURES, kind), ...extra];
        const r = await run(bin, args, { PARLEY_HOME: target });
        assertEquals(r.code, 0, r.stderr);
        assertStringIncludes(r.stdout, "imported: ");
      } finally {
        await Deno.remove(target, { recursive: true });
      }
    }
  });

  await t.step("the PostgreSQL client: store copy, then the daemon on PostgreSQL", async () => {
    const pg = await startPostgres();
    try {
      const to = await pg.database();
      const r = await run(bin, ["store", "copy", "--to", to], { PARLEY_HOME: home });
      assertEquals(r.code, 0, r.stdout + r.stderr);
      // The daemon on PostgreSQL (its store and the cluster's engine) serves the copied account.
      const pgHome = await Deno.makeTempDir({ prefix: "parley-binary-pg-" });
      const onPg = await startServer({
        binary: bin,
        home: pgHome,
        env: { PARLEY_DATABASE_URL: to },
      });
      try {
        const me = await new ApiClient(onPg.url).login("admin@example.com");
        assertEquals(me.email, "admin@example.com");
      } finally {
        await onPg.close();
      }
      assert(!MISSING.test(onPg.output()), onPg.output());
    } finally {
      await pg.close();
    }
  });
}
