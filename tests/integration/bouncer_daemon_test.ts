/**
 * The daemon opens the bouncer listener from PARLEY_IRC_LISTEN: here over TLS (ircs:// with a
 * PEM certificate and key) and plain on loopback, and an IRC client attaches to the connection
 * the user made through the API.
 */
import { assertEquals } from "../support/assert.ts";
import { ApiClient } from "../support/api.ts";
import { BouncerClient } from "../support/bouncer_client.ts";
import { startIrcServer } from "../support/ngircd.ts";
import { poll } from "../support/poll.ts";
import { freePort } from "../support/ports.ts";
import { startServer } from "../support/server.ts";

async function selfSigned(dir: string): Promise<{ cert: string; key: string }> {
  const made = await new Deno.Command("openssl", {
    args: ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=localhost", "-days", "1"]
      .concat([
        "-addext",
        "subjectAltName=DNS:localhost",
        "-addext",
        "basicConstraints=critical,CA:FALSE",
      ])
      .concat(["-keyout", `${dir}/key.pem`, "-out", `${dir}/cert.pem`]),
    stdout: "null",
    stderr: "piped",
  }).output();
  if (!made.success) throw new Error(new TextDecoder().decode(made.stderr));
  return { cert: `${dir}/cert.pem`, key: `${dir}/key.pem` };
}

Deno.test("bouncer: the daemon listens on ircs:// and irc:// from PARLEY_IRC_LISTEN", async () => {
  const dir = await Deno.makeTempDir({ prefix: "parley-ircs-" });
  const pem = await selfSigned(dir);
  const ngircd = await startIrcServer();
  const [tlsPort, plainPort] = [freePort(), freePort()];
  const server = await startServer({
    env: {
      PARLEY_TEST_FAST_IRC: "1",
      PARLEY_IRC_LISTEN: `ircs://localhost:${tlsPort},irc://127.0.0.1:${plainPort}`,
      PARLEY_IRC_TLS_CERT: pem.cert,
      PARLEY_IRC_TLS_KEY: pem.key,
    },
  });
  try {
    const api = new ApiClient(server.url);
    await api.register("admin@example.com", "correct horse battery");
    const made = await api.post("/api/connections", {
      url: `irc://127.0.0.1:${ngircd.port}?nick=dana`,
    });
    const cid = made.body.connection_id;
    await poll("connected", async () => {
      const r = await api.get("/api/connections");
      return r.body.connections[0]?.state === "connected";
    });
    const who = `admin@example.com/${cid}`;
    const tls = await BouncerClient.register(
      await BouncerClient.connectTls(tlsPort, await Deno.readTextFile(pem.cert)),
      who,
      "correct horse battery",
    );
    assertEquals((await tls.waitFor((l) => l.command === "001")).params[0], "dana");
    const plain = await BouncerClient.attach(plainPort, who, "correct horse battery");
    assertEquals((await plain.waitFor((l) => l.command === "001")).params[0], "dana");
    tls.close();
    plain.close();
  } finally {
    await server.close();
    await ngircd.close();
    await Deno.remove(dir, { recursive: true });
  }
});
