/**
 * The daemon as an operator runs it: a scheme's default port, SIGHUP after a certificate renewal,
 * the start-time errors a configuration can cause, and commands run as root in a data folder that
 * belongs to another user. The real daemon and command line, as a child process.
 */
import tls from "node:tls";
import { assert, assertEquals, assertStringIncludes } from "../support/assert.ts";
import { ApiClient } from "../support/api.ts";
import { BouncerClient } from "../support/bouncer_client.ts";
import { parley } from "../support/cli.ts";
import { startIrcServer } from "../support/ngircd.ts";
import { poll } from "../support/poll.ts";
import { freePort } from "../support/ports.ts";
import { daemonProcess } from "../support/daemon_process.ts";
import { startServer } from "../support/server.ts";
import { fingerprint, selfSigned } from "../../lib/self_signed.ts";

const isRoot = Deno.uid() === 0;

/** `ignore` for what only root can do here; the reason is printed when it skips. */
function needsRoot(reason: string): boolean {
  if (!isRoot) console.warn(`skipped (not root): ${reason}`);
  return !isRoot;
}

/** The daemon as a child process with `env`, its output kept. */
const daemon = daemonProcess;

/** A loopback address of its own (127.x.y.z), so that ports 80 and 443 are surely free there. */
function ownLoopback(): string {
  const b = () => 1 + Math.floor(Math.random() * 250);
  return `127.${b()}.${b()}.${b()}`;
}

Deno.test({
  name: "daemon: a listen URL without a port listens on the scheme's port (80, 443)",
  ignore: needsRoot("ports 80 and 443 can be bound only as root (run the suite as root)"),
  async fn() {
    const home = await Deno.makeTempDir({ prefix: "parley-port-" });
    const pem = await selfSigned("localhost");
    await Deno.writeTextFile(`${home}/cert.pem`, pem.cert);
    await Deno.writeTextFile(`${home}/key.pem`, pem.key);
    try {
      for (const listen of ["http://HOST", "http://HOST:80", "https://HOST", "https://HOST:443"]) {
        const host = ownLoopback();
        const d = daemon({
          PARLEY_HOME: home,
          PARLEY_LISTEN: listen.replace("HOST", host),
          PARLEY_TLS_CERT: `${home}/cert.pem`,
          PARLEY_TLS_KEY: `${home}/key.pem`,
        });
        try {
          const port = listen.startsWith("https") ? 443 : 80;
          await poll(`"ready" for ${listen}`, () => d.output().includes(" ready "));
          assertStringIncludes(
            d.output(),
            `listening url=${listen.split(":")[0]}://${host}:${port}`,
          );
          // The port takes connections (a random port would not).
          const conn = await Deno.connect({ hostname: host, port });
          conn.close();
        } finally {
          await d.stop();
        }
      }
      // Without the capability (as User=parley without AmbientCapabilities), one line says so.
      const setpriv = ["setpriv", "--bounding-set=-net_bind_service", "--"];
      const denied = await daemon({
        PARLEY_HOME: home,
        PARLEY_LISTEN: `http://${ownLoopback()}`,
      }, setpriv).exited();
      assertConfigError(denied, "PARLEY_LISTEN");
      assertStringIncludes(denied.out, "AmbientCapabilities=CAP_NET_BIND_SERVICE");
    } finally {
      await Deno.remove(home, { recursive: true });
    }
  },
});

/** The certificate an ircs:// port presents now, as its SHA-512 fingerprint (lowercase hex). */
function presented(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = tls.connect({ host: "127.0.0.1", port, rejectUnauthorized: false });
    socket.on("secureConnect", () => {
      const seen = socket.getPeerCertificate().fingerprint512.replaceAll(":", "").toLowerCase();
      socket.destroy();
      resolve(seen);
    });
    socket.on("error", reject);
  });
}

/** A TLS client of an ircs:// port (any certificate), reading lines into `lines`. */
async function rawTls(port: number): Promise<{ lines: string[]; socket: tls.TLSSocket }> {
  const socket = tls.connect({ host: "127.0.0.1", port, rejectUnauthorized: false });
  const lines: string[] = [];
  let buffer = "";
  socket.on("data", (chunk) => {
    buffer += chunk.toString();
    const parts = buffer.split("\r\n");
    buffer = parts.pop()!;
    lines.push(...parts);
  });
  await new Promise((resolve, reject) => {
    socket.on("secureConnect", resolve);
    socket.on("error", reject);
  });
  return { lines, socket };
}

Deno.test("daemon: SIGHUP takes the renewed TLS certificate and keeps running", async () => {
  const dir = await Deno.makeTempDir({ prefix: "parley-hup-" });
  const [before, after] = [await selfSigned("parley-old"), await selfSigned("parley-new")];
  await Deno.writeTextFile(`${dir}/cert.pem`, before.cert);
  await Deno.writeTextFile(`${dir}/key.pem`, before.key);
  const ngircd = await startIrcServer();
  const [tlsPort, plainPort] = [freePort(), freePort()];
  const server = await startServer({
    env: {
      PARLEY_TEST_FAST_IRC: "1",
      PARLEY_IRC_LISTEN: `ircs://127.0.0.1:${tlsPort},irc://127.0.0.1:${plainPort}`,
      PARLEY_IRC_TLS_CERT: `${dir}/cert.pem`,
      PARLEY_IRC_TLS_KEY: `${dir}/key.pem`,
    },
  });
  try {
    const api = new ApiClient(server.url);
    await api.register("admin@example.com", "correct horse battery");
    const made = await api.post("/api/connections", {
      url: `irc://127.0.0.1:${ngircd.port}?nick=dana`,
    });
    const connected = async () =>
      (await api.get("/api/connections")).body.connections[0]?.state === "connected";
    await poll("connected", connected);
    const attached = await BouncerClient.attach(
      plainPort,
      `admin@example.com/${made.body.connection_id}`,
      "correct horse battery",
    );
    await attached.waitFor((l) => l.command === "001");
    assertEquals(await presented(tlsPort), fingerprint(before.cert));
    const early = await rawTls(tlsPort);

    // certbot writes the renewed pair; the daemon is told with SIGHUP.
    await Deno.writeTextFile(`${dir}/cert.pem`, after.cert);
    await Deno.writeTextFile(`${dir}/key.pem`, after.key);
    Deno.kill(server.pid!()!, "SIGHUP");
    await poll("reloaded", () => server.output().includes("reloaded TLS certificate"));
    assertStringIncludes(server.output(), "listener=ircs");
    assertEquals(await presented(tlsPort), fingerprint(after.cert));

    // Still running, nothing stopped: the HTTP API answers, the IRC connection stays, and the
    // client attached before the signal is still served.
    assertEquals((await api.get("/api/user")).status, 200);
    assert(await connected(), "the IRC connection is still connected");
    await attached.send("PING :still-there");
    await attached.waitFor((l) => l.command === "PONG" && l.params.includes("still-there"));
    assert(!server.output().includes("stopping"), server.output());
    attached.close();
    // A client of the ircs:// port from before the swap keeps its connection.
    early.socket.write("PING :from-before\r\n");
    await poll(
      "PONG on the old TLS connection",
      () => early.lines.some((l) => l.includes("PONG") && l.includes("from-before")),
    );
    early.socket.destroy();

    // A pair that does not fit is refused with a log line, and the current one stays.
    await Deno.writeTextFile(`${dir}/key.pem`, before.key);
    Deno.kill(server.pid!()!, "SIGHUP");
    await poll("refused", () => server.output().includes("TLS certificate not reloaded"));
    assertEquals(await presented(tlsPort), fingerprint(after.cert));
    assertEquals(await server.stop(), 0);
  } finally {
    await server.close();
    await ngircd.close();
    await Deno.remove(dir, { recursive: true });
  }
});

/** The status line of GET /api over TLS, whatever certificate the port presents. */
function httpsStatus(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = tls.connect({ host: "127.0.0.1", port, rejectUnauthorized: false });
    let text = "";
    socket.on("secureConnect", () => {
      socket.write("GET /api HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n");
    });
    socket.on("data", (chunk) => {
      text += chunk.toString();
      if (text.includes("\r\n")) {
        socket.destroy();
        resolve(text.split("\r\n")[0]);
      }
    });
    socket.on("error", reject);
  });
}

Deno.test("daemon: SIGHUP gives the https:// web listener the renewed certificate", async () => {
  const home = await Deno.makeTempDir({ prefix: "parley-hup-web-" });
  const [before, after] = [await selfSigned("parley-old"), await selfSigned("parley-new")];
  await Deno.writeTextFile(`${home}/cert.pem`, before.cert);
  await Deno.writeTextFile(`${home}/key.pem`, before.key);
  const port = freePort();
  const d = daemon({
    PARLEY_HOME: home,
    PARLEY_LISTEN: `https://127.0.0.1:${port}`,
    PARLEY_TLS_CERT: `${home}/cert.pem`,
    PARLEY_TLS_KEY: `${home}/key.pem`,
  });
  try {
    await poll("ready", () => d.output().includes(" ready "));
    assertEquals(await presented(port), fingerprint(before.cert));
    await Deno.writeTextFile(`${home}/cert.pem`, after.cert);
    await Deno.writeTextFile(`${home}/key.pem`, after.key);
    d.signal("SIGHUP");
    await poll("reloaded", () => d.output().includes("reloaded TLS certificate listener=https"));
    assertEquals(await presented(port), fingerprint(after.cert));
    assertEquals(await httpsStatus(port), "HTTP/1.1 200 OK");
    assert(!d.output().includes("stopping"), d.output());
  } finally {
    await d.stop();
    await Deno.remove(home, { recursive: true });
  }
});

/** Asserts a start that failed as a configuration error: exit 2, one line naming `variable`. */
function assertConfigError(r: { code: number; out: string }, variable: string): void {
  assertEquals(r.code, 2, r.out);
  const lines = r.out.split("\n").filter((l) => l.startsWith("parley: "));
  assertEquals(lines.length, 1, r.out);
  assertStringIncludes(lines[0], variable);
  assert(!/^\s+at /m.test(r.out), `no stack trace:\n${r.out}`);
  assert(!r.out.includes(" ready "), `nothing ready:\n${r.out}`);
}

Deno.test("daemon: start errors are one line naming the variable, exit 2, before ready", async (t) => {
  const home = await Deno.makeTempDir({ prefix: "parley-start-" });
  try {
    await t.step({
      name: "a data folder this user cannot read",
      ignore: needsRoot("needs root to drop the capabilities that override file modes"),
      async fn() {
        // Root reads every folder; without the two capabilities that let it, root is held to
        // the folder's mode like any user (setpriv, util-linux).
        const folder = `${home}/locked`;
        await Deno.mkdir(folder, { mode: 0o000 });
        await Deno.chmod(folder, 0o000);
        const setpriv = ["setpriv", "--bounding-set=-dac_override,-dac_read_search", "--"];
        const r = await daemon({ PARLEY_HOME: folder }, setpriv).exited();
        assertConfigError(r, "PARLEY_HOME");
        assertStringIncludes(r.out, "no permission");
      },
    });
    await t.step("a PostgreSQL URL where nothing listens", async () => {
      const port = freePort();
      const r = await daemon({
        PARLEY_HOME: home,
        PARLEY_DATABASE_URL: `postgres://parley:hunter2secret@127.0.0.1:${port}/parley`,
      }).exited();
      assertConfigError(r, "PARLEY_DATABASE_URL");
      assertStringIncludes(r.out, `127.0.0.1:${port}`);
      assert(!r.out.includes("hunter2secret"), "the password is not repeated");
    });
    await t.step("a listen name that does not resolve", async () => {
      const r = await daemon({
        PARLEY_HOME: home,
        PARLEY_LISTEN: `http://nonexistent.invalid:${freePort()}`,
      }).exited();
      assertConfigError(r, "PARLEY_LISTEN");
      assertStringIncludes(r.out, "does not resolve");
    });
    await t.step("an https:// or ircs:// key of another certificate", async () => {
      const [a, b] = [await selfSigned("a"), await selfSigned("b")];
      await Deno.writeTextFile(`${home}/cert.pem`, a.cert);
      await Deno.writeTextFile(`${home}/other.key`, b.key);
      const web = await daemon({
        PARLEY_HOME: home,
        PARLEY_LISTEN: `https://127.0.0.1:${freePort()}`,
        PARLEY_TLS_CERT: `${home}/cert.pem`,
        PARLEY_TLS_KEY: `${home}/other.key`,
      }).exited();
      assertConfigError(web, "PARLEY_TLS_KEY");
      // node:tls takes such a pair and fails every client's handshake without a word.
      const irc = await daemon({
        PARLEY_HOME: home,
        PARLEY_IRC_LISTEN: `ircs://127.0.0.1:${freePort()}`,
        PARLEY_IRC_TLS_CERT: `${home}/cert.pem`,
        PARLEY_IRC_TLS_KEY: `${home}/other.key`,
      }).exited();
      assertConfigError(irc, "PARLEY_IRC_TLS_KEY");
    });
    await t.step("an IRC listen port another program holds", async () => {
      const taken = Deno.listen({ hostname: "127.0.0.1", port: 0 });
      try {
        const port = (taken.addr as Deno.NetAddr).port;
        const r = await daemon({
          PARLEY_HOME: home,
          PARLEY_IRC_LISTEN: `irc://127.0.0.1:${port}`,
        }).exited();
        assertConfigError(r, "PARLEY_IRC_LISTEN");
        assertStringIncludes(r.out, `127.0.0.1:${port}`);
      } finally {
        taken.close();
      }
    });
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});

/** Every path under `dir` (itself included) whose owner is root. */
async function rootOwned(dir: string): Promise<string[]> {
  const found: string[] = [];
  if ((await Deno.lstat(dir)).uid === 0) found.push(dir);
  for await (const e of Deno.readDir(dir)) {
    const path = `${dir}/${e.name}`;
    if (e.isDirectory) found.push(...await rootOwned(path));
    else if ((await Deno.lstat(path)).uid === 0) found.push(path);
  }
  return found;
}

Deno.test({
  name: "cli: as root in a data folder another user owns, commands refuse and write nothing",
  ignore: needsRoot("runs commands as root (run the suite as root)"),
  async fn() {
    const home = await Deno.makeTempDir({ prefix: "parley-owner-" });
    const nobody = 65534;
    try {
      await Deno.chown(home, nobody, nobody);
      for (
        const args of [["user", "list"], ["user", "invite", "a@example.org"], [
          "backup",
          `${home}.tar.gz`,
        ], ["restore", `${home}.tar.gz`]]
      ) {
        const r = await parley(args, { env: { PARLEY_HOME: home } });
        assertEquals(r.code, 2, `${args.join(" ")}: ${r.stderr}`);
        assertStringIncludes(r.stderr, "belongs to");
        assertStringIncludes(r.stderr, "sudo -u");
        assertEquals(r.stderr.trim().split("\n").length, 1, r.stderr);
        assertEquals(await rootOwned(home), [], args.join(" "));
      }
      const d = await daemon({ PARLEY_HOME: home }).exited();
      assertConfigError(d, "belongs to");
      assertEquals(await rootOwned(home), []);
    } finally {
      await Deno.remove(home, { recursive: true });
      await Deno.remove(`${home}.tar.gz`).catch(() => {});
    }
  },
});

Deno.test("daemon: with JSON logs, every line it prints is one JSON object", async () => {
  const home = await Deno.makeTempDir({ prefix: "parley-json-log-" });
  const port = freePort();
  const d = daemon({
    PARLEY_HOME: home,
    PARLEY_LISTEN: `http://127.0.0.1:${port}`,
    PARLEY_LOG_FORMAT: "json",
  });
  try {
    await poll("ready", () => d.output().includes('"ready"'));
    // A request with a body, then a page: Deno printed a warning of its own (not JSON) for the
    // first when a handler read the request's abort signal.
    const res = await fetch(`http://127.0.0.1:${port}/api/user/register`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: "root@example.com", password: "long enough password" }),
    });
    assertEquals(res.status, 200, await res.text());
    await (await fetch(`http://127.0.0.1:${port}/chat`)).body?.cancel();
  } finally {
    await d.stop();
    await Deno.remove(home, { recursive: true });
  }
  const lines = d.output().split("\n").filter((l) => l.trim());
  assert(lines.length > 3, d.output());
  const records: Record<string, unknown>[] = [];
  for (const line of lines) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      parsed = undefined;
    }
    assert(typeof parsed === "object" && parsed !== null, `not JSON: ${line}`);
    records.push(parsed as Record<string, unknown>);
  }
  // A duration is a number, as a log reader sums or compares it.
  const ready = records.find((r) => r.msg === "ready");
  assertEquals(typeof ready?.ms, "number", JSON.stringify(ready));
});
