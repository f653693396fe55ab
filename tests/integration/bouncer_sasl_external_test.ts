/**
 * SASL EXTERNAL to the listener: over TLS, a client certificate the user registered (BouncerServ
 * `certfp add`, by its SHA-256) logs its owner in, with the network and client named as PLAIN
 * names them; an unregistered certificate, none, another user's email, or a plain connection is
 * refused; removing the certificate ends the clients it let in.
 */
import { createHash } from "node:crypto";
import { assert, assertEquals } from "../support/assert.ts";
import { EMAIL, PASSWORD, setupBouncer } from "../support/bouncer.ts";
import { BouncerClient, type Received } from "../support/bouncer_client.ts";
import { pemBytes, selfSigned } from "../../lib/self_signed.ts";
import { poll } from "../support/poll.ts";

/** A server certificate for `localhost` (openssl, as the daemon's test makes one). */
async function serverPem(): Promise<{ cert: string; key: string }> {
  const dir = await Deno.makeTempDir({ prefix: "parley-external-" });
  try {
    const made = await new Deno.Command("openssl", {
      args: ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes"]
        .concat(["-subj", "/CN=localhost", "-days", "1"])
        .concat(["-addext", "subjectAltName=DNS:localhost"])
        .concat(["-addext", "basicConstraints=critical,CA:FALSE"])
        .concat(["-keyout", `${dir}/key.pem`, "-out", `${dir}/cert.pem`]),
      stdout: "null",
      stderr: "piped",
    }).output();
    if (!made.success) throw new Error(new TextDecoder().decode(made.stderr));
    return {
      cert: await Deno.readTextFile(`${dir}/cert.pem`),
      key: await Deno.readTextFile(`${dir}/key.pem`),
    };
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

const b64 = (text: string) => btoa(String.fromCharCode(...new TextEncoder().encode(text)));

/** Registers over TLS with SASL EXTERNAL; resolves with the client after 903 or 904. */
async function external(
  port: number,
  ca: string,
  cert: { cert: string; key: string } | undefined,
  opts: { user?: string; authzid?: string } = {},
): Promise<{ c: BouncerClient; outcome: Received }> {
  const c = await BouncerClient.connectTls(port, ca, "external", cert);
  await c.send("CAP LS 302");
  await c.send("NICK whoever");
  await c.send(`USER ${opts.user ?? "jane"} 0 * :Jane`);
  await c.waitFor((l) => l.command === "CAP" && l.params[1] === "LS");
  await c.send("CAP REQ :sasl");
  await c.waitFor((l) => l.command === "CAP" && l.params[1] === "ACK");
  await c.send("AUTHENTICATE EXTERNAL");
  await c.waitFor((l) => l.command === "AUTHENTICATE");
  await c.send(`AUTHENTICATE ${opts.authzid ? b64(opts.authzid) : "+"}`);
  const outcome = await c.waitFor((l) => l.command === "903" || l.command === "904");
  return { c, outcome };
}

Deno.test("bouncer: SASL EXTERNAL with a registered client certificate", async (t) => {
  const pem = await serverPem();
  const s = await setupBouncer({}, undefined, pem);
  const mine = await selfSigned("jane's laptop");
  const fp = createHash("sha256").update(pemBytes(mine.cert)).digest("hex");
  const stranger = await selfSigned("someone");
  try {
    const plain = await BouncerClient.attach(s.port, `${EMAIL}/${s.cid}@plain`, PASSWORD);

    await t.step("CAP offers EXTERNAL over TLS only", async () => {
      const c = await BouncerClient.connectTls(s.tlsPort, pem.cert, "ls", mine);
      await c.send("CAP LS 302");
      const ls = await c.waitFor((l) => l.command === "CAP" && l.params[1] === "LS");
      assert(ls.params.at(-1)!.split(" ").includes("sasl=PLAIN,EXTERNAL"), ls.raw);
      c.close();
      const p = await BouncerClient.connect(s.port);
      await p.send("CAP LS 302");
      const pls = await p.waitFor((l) => l.command === "CAP" && l.params[1] === "LS");
      assert(pls.params.at(-1)!.split(" ").includes("sasl=PLAIN"), pls.raw);
      await p.send("CAP REQ :sasl");
      await p.waitFor((l) => l.command === "CAP" && l.params[1] === "ACK");
      await p.send("AUTHENTICATE EXTERNAL");
      const no = await p.waitFor((l) => l.command === "908");
      assertEquals(no.params[1], "PLAIN");
      await p.waitFor((l) => l.command === "904");
      p.close();
    });

    await t.step("an unregistered certificate, or none, is refused", async () => {
      const a = await external(s.tlsPort, pem.cert, mine, { user: `/${s.cid}` });
      assertEquals(a.outcome.command, "904");
      await a.c.waitClosed();
      const b = await external(s.tlsPort, pem.cert, undefined, { user: `/${s.cid}` });
      assertEquals(b.outcome.command, "904");
      await b.c.waitClosed();
    });

    let byUser: BouncerClient | undefined;
    let byAuthzid: BouncerClient | undefined;
    await t.step("certfp add without a fingerprint takes this client's certificate", async () => {
      const c = await BouncerClient.register(
        await BouncerClient.connectTls(s.tlsPort, pem.cert, "tls-plain", mine),
        `${EMAIL}/${s.cid}@tlsplain`,
        PASSWORD,
      );
      await c.send("PRIVMSG BouncerServ :certfp add");
      await c.waitFor((l) => l.command === "NOTICE" && /^Added/.test(l.params[1]));
      const admin = (await s.app.deps.store.users.byEmail(EMAIL))!;
      assertEquals(await s.app.deps.store.certfp.owner(fp), admin.id);
      await c.send(`PRIVMSG BouncerServ :certfp remove ${fp}`);
      await c.waitFor((l) => l.command === "NOTICE" && /^Removed/.test(l.params[1]));
      c.close();
      const from = plain.lines.length;
      await plain.send("PRIVMSG BouncerServ :certfp add");
      const no = await plain.waitFor((l) => l.command === "NOTICE", from);
      assert(/presented no certificate/.test(no.params[1]), no.raw);
    });

    await t.step("registered: the owner logs in, the network from USER or authzid", async () => {
      const from = plain.lines.length;
      await plain.send(`PRIVMSG BouncerServ :certfp add ${fp}`);
      await plain.waitFor((l) => l.command === "NOTICE" && /^Added/.test(l.params[1]), from);

      const u = await external(s.tlsPort, pem.cert, mine, { user: `/${s.cid}@laptop` });
      assertEquals(u.outcome.command, "903");
      byUser = u.c;
      await byUser.send("CAP END");
      const welcome = await byUser.waitFor((l) => l.command === "001");
      assertEquals(welcome.params[0], "alice");
      const logged = byUser.lines.find((l) => l.command === "900")!;
      assertEquals(logged.params[2], EMAIL);

      const a = await external(s.tlsPort, pem.cert, mine, { authzid: `${EMAIL}/${s.cid}@phone` });
      assertEquals(a.outcome.command, "903");
      byAuthzid = a.c;
      await byAuthzid.send("CAP END");
      await byAuthzid.waitFor((l) => l.command === "001");

      // Said by one client, seen by the other: both are the connection's.
      await byUser.send("JOIN #ext");
      await byAuthzid.waitFor((l) => l.command === "JOIN" && l.params[0] === "#ext");

      const other = await external(s.tlsPort, pem.cert, mine, {
        authzid: `bob@example.com/${s.cid}`,
      });
      assertEquals(other.outcome.command, "904", "another user's email");
      const someone = await external(s.tlsPort, pem.cert, stranger, { user: `/${s.cid}` });
      assertEquals(someone.outcome.command, "904", "a certificate nobody registered");
    });

    await t.step("removing the certificate ends its clients", async () => {
      const at = plain.lines.length;
      await plain.send(`PRIVMSG BouncerServ :certfp remove ${fp}`);
      await plain.waitFor((l) => l.command === "NOTICE" && /^Removed/.test(l.params[1]), at);
      const ended = await byUser!.waitFor((l) => l.command === "ERROR");
      assert(/certificate was removed/.test(ended.params[0]), ended.raw);
      await byAuthzid!.waitClosed();
      assert(!plain.closed, "the password's client stays");
      const again = await external(s.tlsPort, pem.cert, mine, { user: `/${s.cid}` });
      assertEquals(again.outcome.command, "904");
    });
    plain.close();
  } finally {
    await s.close();
  }
});

Deno.test("bouncer: a TLS client still shaking hands counts as registering", async () => {
  const pem = await serverPem();
  const s = await setupBouncer({ unregisteredPerAddress: 2 }, undefined, pem);
  const silent: Deno.Conn[] = [];
  try {
    // Two sockets that never start TLS hold both places of their address.
    for (let i = 0; i < 2; i++) {
      silent.push(await Deno.connect({ hostname: "127.0.0.1", port: s.tlsPort }));
    }
    const third = await BouncerClient.connectTls(s.tlsPort, pem.cert, "third");
    await third.send("CAP LS 302").catch(() => {});
    await third.waitClosed();
    assert(!third.lines.some((l) => l.command === "CAP"), "refused before it registered");
    // One gone, a place is free again.
    silent.shift()!.close();
    await poll("a place is free", async () => {
      const c = await BouncerClient.connectTls(s.tlsPort, pem.cert, "fourth");
      await c.send("CAP LS 302").catch(() => {});
      const ok = await Promise.race([
        c.waitFor((l) => l.command === "CAP").then(() => true, () => false),
        c.waitClosed().then(() => false),
      ]);
      c.close();
      return ok;
    });
  } finally {
    for (const c of silent) c.close();
    await s.close();
  }
});
