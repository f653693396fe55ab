/**
 * The IRCv3 WebSocket spec, sentence by sentence, against `GET /socket` (a scripted server
 * upstream, to send bytes that are not UTF-8). docs/bouncer.md lists each MUST and SHOULD with
 * the step that tests it.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { EMAIL, PASSWORD, setupBouncerOn } from "../support/bouncer.ts";
import { plain } from "../support/bouncer_client.ts";
import { startHostileIrc } from "../support/hostile_irc.ts";
import { poll } from "../support/poll.ts";
import { parseMessage } from "../../irc/protocol/message.ts";

/** A WebSocket client offering `protocols`, recording frames as strings (and their kind). */
async function open(url: string, protocols: string[]) {
  const ws = new WebSocket(url, protocols);
  ws.binaryType = "arraybuffer";
  const frames: { text: string; binary: boolean }[] = [];
  let closed = false;
  ws.onmessage = (ev) => {
    const binary = ev.data instanceof ArrayBuffer;
    frames.push({ text: binary ? new TextDecoder().decode(ev.data) : ev.data, binary });
  };
  ws.onclose = () => void (closed = true);
  await poll("open", () => ws.readyState === WebSocket.OPEN);
  const send = (line: string) =>
    ws.protocol === "binary.ircv3.net" ? ws.send(new TextEncoder().encode(line)) : ws.send(line);
  const waitFor = (test: (raw: string) => boolean) =>
    poll("a frame", () => {
      const hit = frames.find((f) => test(f.text));
      if (!hit && closed) throw new Error(`closed: ${frames.map((f) => f.text).join("\n")}`);
      return hit;
    });
  const login = async (username: string) => {
    for (const l of ["CAP LS 302", "NICK w", "USER w 0 * :w", "CAP REQ :sasl"]) send(l);
    await waitFor((l) => l.includes(" ACK "));
    send("AUTHENTICATE PLAIN");
    await waitFor((l) => parseMessage(l)?.command === "AUTHENTICATE");
    send(`AUTHENTICATE ${plain(username, PASSWORD)}`);
    await waitFor((l) => parseMessage(l)?.command === "903");
    send("CAP END");
    await waitFor((l) => parseMessage(l)?.command === "001");
  };
  return {
    ws,
    frames,
    send,
    waitFor,
    login,
    get closed() {
      return closed;
    },
  };
}

Deno.test("spec websocket: both subprotocols, the client's order, one line a frame, UTF-8", async (t) => {
  const irc = startHostileIrc();
  const s = await setupBouncerOn(irc.url);
  s.app.deps.bouncer = s.bouncer;
  const http = await s.app.listen();
  const url = `ws://127.0.0.1:${http.port}/socket`;
  const server = irc.clients[0];
  const user = `${EMAIL}/${s.cid}`;
  try {
    await s.app.deps.irc.send(1, s.cid, "", "/join #ws");
    await server.waitFor((l) => l === "JOIN #ws");
    await server.send(":alice!alice@host JOIN #ws");
    await server.send(":irc.hostile.test 366 alice #ws :End of /NAMES list.");

    await t.step("both subprotocols are spoken, in the client's order (MUST)", async () => {
      for (
        const [offered, chosen] of [
          [["binary.ircv3.net", "text.ircv3.net"], "binary.ircv3.net"],
          [["text.ircv3.net", "binary.ircv3.net"], "text.ircv3.net"],
          [["chat.example", "binary.ircv3.net"], "binary.ircv3.net"],
        ] as const
      ) {
        const c = await open(url, [...offered]);
        assertEquals(c.ws.protocol, chosen, offered.join());
        c.ws.close();
      }
    });

    await t.step("binary.ircv3.net: binary frames both ways, a line each", async () => {
      const c = await open(url, ["binary.ircv3.net"]);
      await c.login(`${user}@bin`);
      c.send("PING :binary");
      await c.waitFor((l) => l.endsWith("PONG parley binary"));
      assert(c.frames.every((f) => f.binary), "every frame binary");
      c.ws.close();
    });

    await t.step("each frame one line, without CR or LF (MUST)", async () => {
      const c = await open(url, ["text.ircv3.net"]);
      await c.login(`${user}@text`);
      await c.waitFor((l) => parseMessage(l)?.command === "366");
      c.send("PING :text");
      await c.waitFor((l) => l.endsWith("PONG parley text"));
      assert(c.frames.length > 10);
      for (const f of c.frames) {
        assert(!f.binary, "text frames");
        assert(!/[\r\n]/.test(f.text), JSON.stringify(f.text));
      }
      c.ws.close();
    });

    await t.step("no bytes that are not UTF-8 in a text frame (MUST NOT)", async () => {
      const c = await open(url, ["text.ircv3.net"]);
      await c.login(`${user}@utf`);
      await c.waitFor((l) => parseMessage(l)?.command === "366");
      const latin1 = new Uint8Array([
        ...new TextEncoder().encode(":bob!b@h PRIVMSG #ws :caf"),
        0xe9,
        0xff,
        ...new TextEncoder().encode(" ok\r\n"),
      ]);
      await server.write(latin1);
      const got = await c.waitFor((l) => l.includes(" ok") && l.includes("PRIVMSG"));
      assert(got.text.includes("caf"), got.text);
      c.send("PING :still");
      await c.waitFor((l) => l.endsWith("PONG parley still"));
      assert(!c.closed, "the browser would have closed on a frame that is not UTF-8");
      c.ws.close();
    });

    await t.step("a frame past the size bound is refused (SHOULD)", async () => {
      const c = await open(url, ["text.ircv3.net"]);
      await c.login(`${user}@big`);
      c.send(`PRIVMSG #ws :${"x".repeat(9000)}`);
      await c.waitFor((l) => parseMessage(l)?.command === "417");
      c.ws.close();
    });
  } finally {
    await http.stop();
    await s.close();
    await irc.close();
  }
});
