/**
 * A small TLS IRC server on loopback that asks for a client certificate and answers SASL EXTERNAL
 * by it: a login succeeds when the certificate's SHA-512 fingerprint is the registered one, as
 * services do with `NickServ CERT ADD`. It keeps the fingerprint of every certificate presented.
 */
import tls from "node:tls";
import { createHash } from "node:crypto";
import { selfSigned } from "../../lib/self_signed.ts";

/** The running server. */
export interface SaslExternalIrc {
  port: number;
  /** The fingerprint services accept (SHA-512 hex); "" accepts none. */
  accepted: string;
  /** SHA-512 fingerprints of the certificates clients presented, oldest first ("" for none). */
  readonly presented: string[];
  /** SASL outcomes, oldest first: "903" (logged in) or "904" (failed). */
  readonly outcomes: string[];
  close(): Promise<void>;
}

/** Starts the server on 127.0.0.1 on a free port. */
export async function startSaslExternalIrc(): Promise<SaslExternalIrc> {
  const own = await selfSigned("localhost");
  const sockets = new Set<tls.TLSSocket>();
  const state: SaslExternalIrc = {
    port: 0,
    accepted: "",
    presented: [],
    outcomes: [],
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
  const server = tls.createServer(
    { cert: own.cert, key: own.key, requestCert: true, rejectUnauthorized: false },
    (socket) => {
      sockets.add(socket);
      socket.on("close", () => sockets.delete(socket));
      socket.on("error", () => {});
      const peer = socket.getPeerCertificate(true);
      const fp = peer?.raw ? createHash("sha512").update(peer.raw).digest("hex") : "";
      state.presented.push(fp);
      let nick = "*";
      let buffer = "";
      const send = (line: string) => socket.write(`:irc.sasl.test ${line}\r\n`);
      socket.on("data", (chunk: Uint8Array) => {
        buffer += new TextDecoder().decode(chunk);
        if (buffer.length > 65536) return socket.destroy();
        let at;
        while ((at = buffer.indexOf("\n")) >= 0) {
          const line = buffer.slice(0, at).replace(/\r$/, "");
          buffer = buffer.slice(at + 1);
          const [command, ...params] = line.split(" ");
          switch (command.toUpperCase()) {
            case "CAP":
              if (params[0] === "LS") send(`CAP ${nick} LS :sasl=EXTERNAL`);
              else if (params[0] === "REQ") send(`CAP ${nick} ACK :sasl`);
              else if (params[0] === "END") {
                send(`001 ${nick} :Welcome`);
                send(`376 ${nick} :End of MOTD`);
              }
              break;
            case "NICK":
              nick = params[0];
              break;
            case "AUTHENTICATE":
              if (params[0] === "EXTERNAL") socket.write("AUTHENTICATE +\r\n");
              else if (fp && fp === state.accepted) {
                state.outcomes.push("903");
                send(`900 ${nick} ${nick}!u@h ${nick} :You are now logged in as ${nick}`);
                send(`903 ${nick} :SASL authentication successful`);
              } else {
                state.outcomes.push("904");
                send(`904 ${nick} :SASL authentication failed`);
              }
              break;
            case "PING":
              send(`PONG irc.sasl.test :${params.at(-1)?.replace(/^:/, "")}`);
              break;
            case "QUIT":
              socket.end();
              break;
          }
        }
      });
    },
  );
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  state.port = (server.address() as { port: number }).port;
  return state;
}
