/** An IRC client over `/socket` (text.ircv3.net, one line per frame) recording what it receives. */
import { parseMessage } from "../../irc/protocol/message.ts";
import { plain } from "./bouncer_client.ts";
import { poll } from "./poll.ts";

export interface IrcSocket {
  ws: WebSocket;
  /** The frames received. */
  lines: string[];
  /** Whether the socket has closed. */
  readonly closed: boolean;
  /** The first frame (received already or later) that passes `test`. */
  waitFor(test: (raw: string) => boolean): Promise<string>;
  waitClosed(): Promise<void>;
  /** Answers a PING (served) or is closed (refused), whichever comes; true when served. */
  served(): Promise<boolean>;
  /** Registers with SASL PLAIN up to 001. */
  login(username: string, password: string): Promise<void>;
}

/** The command of a received frame. */
export const command = (raw: string) => parseMessage(raw)?.command;

/** Opens `/socket` (with extra handshake headers: X-Forwarded-For, Origin) and waits until open. */
export async function openIrcSocket(url: string, headers?: HeadersInit): Promise<IrcSocket> {
  // Deno takes handshake headers in a second argument the DOM's types do not know.
  const init = { protocols: ["text.ircv3.net"], headers } as unknown as string[];
  const ws = new WebSocket(url, init);
  const lines: string[] = [];
  let closed = false;
  ws.onmessage = (ev) => void lines.push(String(ev.data));
  ws.onclose = () => void (closed = true);
  await poll("the socket opens or closes", () => ws.readyState !== WebSocket.CONNECTING);
  const waitFor = (test: (raw: string) => boolean) =>
    poll("a frame", () => {
      const hit = lines.find(test);
      if (hit === undefined && closed) throw new Error(`closed; got:\n${lines.join("\n")}`);
      return hit;
    });
  const socket: IrcSocket = {
    ws,
    lines,
    get closed() {
      return closed;
    },
    waitFor,
    waitClosed: () => poll("the socket closes", () => closed).then(() => {}),
    async served() {
      if (ws.readyState === WebSocket.OPEN) ws.send("PING :served");
      const what = await poll(
        "an answer or the end",
        () => lines.some((l) => command(l) === "PONG") ? "served" : closed ? "closed" : undefined,
      );
      return what === "served";
    },
    async login(username, password) {
      for (const l of ["CAP LS 302", "NICK w", "USER w 0 * :w", "CAP REQ :sasl"]) ws.send(l);
      await waitFor((l) => l.includes(" ACK "));
      ws.send("AUTHENTICATE PLAIN");
      await waitFor((l) => command(l) === "AUTHENTICATE");
      ws.send(`AUTHENTICATE ${plain(username, password)}`);
      await waitFor((l) => command(l) === "903");
      ws.send("CAP END");
      await waitFor((l) => command(l) === "001");
    },
  };
  return socket;
}
