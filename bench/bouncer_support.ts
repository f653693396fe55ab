/**
 * What the benches that attach IRC clients to the listener share (bouncer.ts, irc_scale.ts): a
 * client that registers as gamja does, asking for each capability gamja asks for that the listener
 * offers, then logs in with SASL PLAIN.
 */
import { BouncerClient, plain } from "../tests/support/bouncer_client.ts";

/** The capabilities gamja asks for when they are offered (sasl is asked for apart). */
const GAMJA_CAPS = [
  "account-notify",
  "away-notify",
  "batch",
  "chghost",
  "echo-message",
  "extended-join",
  "invite-notify",
  "labeled-response",
  "message-tags",
  "multi-prefix",
  "server-time",
  "setname",
  "draft/chathistory",
  "draft/event-playback",
  "draft/extended-monitor",
  "draft/read-marker",
  "soju.im/bouncer-networks",
  "soju.im/read",
];

/**
 * Connects to the listener on `port`, asks for the GAMJA_CAPS it offers and logs in as `login`;
 * resolves once the burst has been read (the PONG of a PING sent after 001).
 */
export async function attachAsGamja(
  port: number,
  login: string,
  password: string,
  name: string,
): Promise<BouncerClient> {
  const c = await BouncerClient.connect(port, name);
  await c.send("CAP LS 302");
  await c.send("NICK whoever");
  await c.send("USER u 0 * :Some One");
  await c.waitFor((l) => l.command === "CAP" && l.params[1] === "LS" && l.params[2] !== "*");
  const offered = new Set(
    c.lines.filter((l) => l.command === "CAP" && l.params[1] === "LS")
      .flatMap((l) => (l.params.at(-1) ?? "").split(" ").map((cap) => cap.split("=")[0])),
  );
  const wanted = ["sasl", ...GAMJA_CAPS.filter((cap) => offered.has(cap))];
  await c.send(`CAP REQ :${wanted.join(" ")}`);
  await c.waitFor((l) => l.command === "CAP" && l.params[1] === "ACK");
  await c.send("AUTHENTICATE PLAIN");
  await c.waitFor((l) => l.command === "AUTHENTICATE");
  await c.send(`AUTHENTICATE ${plain(login, password)}`);
  await c.waitFor((l) => l.command === "903");
  await c.send("CAP END");
  await c.waitFor((l) => l.command === "001", 0, 60_000);
  await c.send("PING :attached");
  await c.waitFor((l) => l.command === "PONG" && l.params.at(-1) === "attached", 0, 60_000);
  return c;
}
