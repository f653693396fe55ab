/** Starts a real ngircd on a free loopback port for a test. */
import { serverProcess } from "./server_process.ts";
import { ensureTools, NGIRCD } from "../../scripts/system_deps.ts";
import { freePort } from "./ports.ts";

/** A running ngircd. */
export interface IrcServer {
  host: string;
  port: number;
  /** `irc://127.0.0.1:PORT` */
  url: string;
  /** With `{tls: true}`: the TLS port (self-signed certificate for CN=localhost), else 0. */
  tlsPort: number;
  output(): string;
  /** Kills the server (connections drop); `start()` brings it back on the same port. */
  stop(): Promise<void>;
  start(): Promise<void>;
  close(): Promise<void>;
}

/** Options of startIrcServer. */
export interface IrcServerOptions {
  /** Also listen with TLS on `tlsPort`, with a fresh self-signed certificate (needs openssl). */
  tls?: boolean;
  /**
   * Ask each client's port 113 who it is (RFC 1413), as networks do (ngircd asks only beside its
   * DNS lookup, so that is on too).
   */
  ident?: boolean;
}

/**
 * Starts ngircd with flood throttling off (MaxPenaltyTime = 0), its whole channel list answered
 * (it sends at most 100 by default) and no DNS or (unless asked) ident lookups.
 */
export async function startIrcServer(opts: IrcServerOptions = {}): Promise<IrcServer> {
  const [bin] = await ensureTools([NGIRCD]);
  const dir = await Deno.makeTempDir({ prefix: "parley-ngircd-" });
  await Deno.chmod(dir, 0o755);
  const port = freePort();
  const tlsPort = opts.tls ? freePort() : 0;
  let ssl = "";
  if (opts.tls) {
    const made = await new Deno.Command("openssl", {
      args: [
        "req",
        "-x509",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-subj",
        "/CN=localhost",
        "-days",
        "1",
      ]
        .concat(["-keyout", `${dir}/key.pem`, "-out", `${dir}/cert.pem`]),
      stdout: "null",
      stderr: "piped",
    }).output();
    if (!made.success) throw new Error(new TextDecoder().decode(made.stderr));
    for (const f of ["key.pem", "cert.pem"]) await Deno.chmod(`${dir}/${f}`, 0o644);
    ssl = `[SSL]\nCertFile = ${dir}/cert.pem\nKeyFile = ${dir}/key.pem\nPorts = ${tlsPort}\n`;
  }
  const conf = `${dir}/ngircd.conf`;
  await Deno.writeTextFile(
    conf,
    `[Global]
Name = irc.parley.test
Info = Parley test server
AdminInfo1 = Parley tests
AdminInfo2 = localhost
AdminEMail = root@localhost
Listen = 127.0.0.1
Ports = ${port}
MotdPhrase = Welcome to the Parley test server
[Limits]
MaxPenaltyTime = 0
PingTimeout = 120
PongTimeout = 20
MaxConnectionsIP = 0
MaxJoins = 0
MaxNickLength = 30
MaxListSize = 100000
[Options]
DNS = ${opts.ident ? "yes" : "no"}
Ident = ${opts.ident ? "yes" : "no"}
PAM = no
${ssl}`,
  );
  await Deno.chmod(conf, 0o644);
  const server = serverProcess({ name: "ngircd", command: bin, args: ["-n", "-f", conf], port });
  const { start, stop } = server;

  await start();
  return {
    host: "127.0.0.1",
    port,
    url: `irc://127.0.0.1:${port}`,
    tlsPort,
    output: server.output,
    stop,
    start,
    async close() {
      await stop();
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    },
  };
}
