/**
 * A real OpenLDAP server on loopback for the tests of the LDAP login: its own configuration and
 * database in a temporary folder, the suffix `dc=example,dc=com`, and people added as
 * `uid=NAME,dc=example,dc=com` (the DN Parley builds from NAME@example.com by default).
 */
import { Client } from "ldapts";
import { ensureTools, SLAPD } from "../../scripts/system_deps.ts";
import { freePort } from "./ports.ts";

const SUFFIX = "dc=example,dc=com";
const ROOT_DN = `cn=admin,${SUFFIX}`;
const ROOT_PASSWORD = "the directory's own password";

export interface Directory {
  /** `ldap://127.0.0.1:PORT` */
  url: string;
  /** With `{ tls: true }`: `ldaps://127.0.0.1:PORT`, and the PEM file of the CA that signed it. */
  ldaps?: { url: string; caFile: string };
  /** The directory's admin, who may search it. */
  admin: { dn: string; password: string };
  /**
   * Adds a person who binds as `uid=NAME,dc=example,dc=com` with `password`, their `mail`
   * NAME@example.com unless given.
   */
  addPerson(name: string, password: string, mail?: string): Promise<void>;
  /** Sets a person's password. */
  setPassword(name: string, password: string): Promise<void>;
  /** Stops the server (binds fail to connect); `start()` brings it back on the same port. */
  stop(): Promise<void>;
  start(): Promise<void>;
  close(): Promise<void>;
}

/** Runs openssl with `args` in `dir`. */
async function openssl(dir: string, args: string[]): Promise<void> {
  const made = await new Deno.Command("openssl", {
    args,
    cwd: dir,
    stdout: "null",
    stderr: "piped",
  })
    .output();
  if (!made.success) throw new Error(new TextDecoder().decode(made.stderr));
}

/**
 * A CA of the test's own and a certificate it signed for 127.0.0.1 (a certificate that is its own
 * CA is refused as a server's by rustls, which Deno's TLS is).
 */
async function makeCertificates(dir: string): Promise<void> {
  const key = ["-newkey", "rsa:2048", "-nodes", "-days", "1"];
  await openssl(dir, [
    "req",
    "-x509",
    ...key,
    "-subj",
    "/CN=Parley test CA",
    "-keyout",
    "ca.key",
    "-out",
    "ca.pem",
  ]);
  await openssl(dir, [
    "req",
    ...key.slice(0, 3),
    "-subj",
    "/CN=127.0.0.1",
    "-keyout",
    "key.pem",
    "-out",
    "req.csr",
  ]);
  await Deno.writeTextFile(
    `${dir}/ext.cnf`,
    "subjectAltName=IP:127.0.0.1\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n",
  );
  await openssl(dir, [
    "x509",
    "-req",
    "-in",
    "req.csr",
    "-CA",
    "ca.pem",
    "-CAkey",
    "ca.key",
    "-CAcreateserial",
    "-days",
    "1",
    "-extfile",
    "ext.cnf",
    "-out",
    "cert.pem",
  ]);
}

/**
 * Starts slapd (installed first when missing) and adds the suffix's own entry; with `tls`, it
 * also listens for `ldaps://` with a certificate of a CA of the test's own.
 */
export async function startDirectory(opts: { tls?: boolean } = {}): Promise<Directory> {
  const [bin] = await ensureTools([SLAPD]);
  const dir = await Deno.makeTempDir({ prefix: "parley-slapd-" });
  await Deno.mkdir(`${dir}/db`);
  if (opts.tls) await makeCertificates(dir);
  await Deno.writeTextFile(
    `${dir}/slapd.conf`,
    [
      ...["core", "cosine", "inetorgperson"].map((s) => `include /etc/ldap/schema/${s}.schema`),
      "modulepath /usr/lib/ldap",
      "moduleload back_mdb",
      `pidfile ${dir}/slapd.pid`,
      "database mdb",
      `suffix "${SUFFIX}"`,
      `rootdn "${ROOT_DN}"`,
      `rootpw "${ROOT_PASSWORD}"`,
      `directory ${dir}/db`,
      "maxsize 10485760",
      ...(opts.tls
        ? [`TLSCertificateFile ${dir}/cert.pem`, `TLSCertificateKeyFile ${dir}/key.pem`]
        : []),
      "",
    ].join("\n"),
  );
  const port = freePort();
  const url = `ldap://127.0.0.1:${port}`;
  const ldaps = opts.tls
    ? { url: `ldaps://127.0.0.1:${freePort()}`, caFile: `${dir}/ca.pem` }
    : undefined;
  let child: Deno.ChildProcess | undefined;

  async function start() {
    // -d 0: in the foreground, so that the test owns the process; no debug output.
    child = new Deno.Command(bin, {
      args: [
        "-f",
        `${dir}/slapd.conf`,
        "-h",
        [url, ldaps?.url].filter(Boolean).join("/ ") + "/",
        "-d",
        "0",
      ],
      stdout: "null",
      stderr: "piped",
    }).spawn();
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline) {
      try {
        (await Deno.connect({ hostname: "127.0.0.1", port })).close();
        return;
      } catch { /* not listening yet */ }
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`slapd did not start on ${url}`);
  }

  async function stop() {
    if (!child) return;
    child.kill("SIGTERM");
    await child.stderr.cancel();
    await child.status;
    child = undefined;
  }

  /** Runs `fn` bound as the directory's admin. */
  async function asAdmin(fn: (c: Client) => Promise<void>) {
    const client = new Client({ url, timeout: 5_000, connectTimeout: 5_000 });
    try {
      await client.bind(ROOT_DN, ROOT_PASSWORD);
      await fn(client);
    } finally {
      await client.unbind();
    }
  }

  await start();
  await asAdmin((c) =>
    c.add(SUFFIX, { objectClass: ["dcObject", "organization"], dc: "example", o: "Example" })
  );
  return {
    url,
    ldaps,
    admin: { dn: ROOT_DN, password: ROOT_PASSWORD },
    addPerson: (name, password, mail = `${name}@example.com`) =>
      asAdmin((c) =>
        c.add(`uid=${name},${SUFFIX}`, {
          objectClass: ["inetOrgPerson"],
          uid: name,
          cn: name,
          sn: name,
          mail,
          userPassword: password,
        })
      ),
    setPassword: (name, password) =>
      asAdmin(async (c) => {
        const { Change, Attribute } = await import("ldapts");
        await c.modify(
          `uid=${name},${SUFFIX}`,
          new Change({
            operation: "replace",
            modification: new Attribute({ type: "userPassword", values: [password] }),
          }),
        );
      }),
    stop,
    start,
    async close() {
      await stop();
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    },
  };
}
