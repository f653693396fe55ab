/**
 * IRC over WebSocket at `GET /socket` (subprotocol text.ircv3.net, one line per text frame): a web
 * IRC client logs in with SASL and shares the connection's stream. Without the listener, or with
 * another subprotocol, the route refuses with the API's error body.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { EMAIL, PASSWORD, setupBouncer } from "../support/bouncer.ts";
import { plain } from "../support/bouncer_client.ts";
import { RawIrcClient } from "../support/irc_client.ts";
import { parseMessage } from "../../irc/protocol/message.ts";
import { MAX_LINE_BYTES } from "../../bouncer/transport.ts";

/** A WebSocket IRC client recording the lines (frames) it receives. */
function open(url: string) {
  const ws = new WebSocket(url, "text.ircv3.net");
  const lines: string[] = [];
  let wake: (() => void) | undefined;
  ws.onmessage = (ev) => {
    lines.push(String(ev.data));
    wake?.();
  };
  const opened = new Promise((r) => ws.onopen = r);
  const closed = new Promise((r) => ws.onclose = r);
  const waitFor = async (test: (raw: string) => boolean) => {
    for (let i = 0; i < 10_000; i++) {
      const hit = lines.find(test);
      if (hit !== undefined) return hit;
      await new Promise<void>((r) => {
        wake = r;
        setTimeout(r, 50);
      });
    }
    throw new Error(`no such frame; got:\n${lines.slice(-10).join("\n")}`);
  };
  return { ws, lines, opened, closed, waitFor };
}

const cmd = (raw: string) => parseMessage(raw)?.command;

Deno.test("bouncer: IRC over WebSocket at /socket", async (t) => {
  const s = await setupBouncer();
  const before = await s.app.request("/socket");
  assertEquals(before.status, 404, "no listener, no /socket");
  s.app.deps.bouncer = s.bouncer;
  const http = await s.app.listen();
  const bob = await RawIrcClient.connect(s.ngircd.port, "bob");
  try {
    await s.app.deps.irc.send(1, s.cid, "", "/join #web");
    await bob.join("#web");

    await t.step("a plain GET and another subprotocol are refused", async () => {
      const get = await s.app.request("/socket");
      assertEquals(get.status, 400);
      assertEquals(get.body.errors[0].path, "/");
      const res = await fetch(`http://127.0.0.1:${http.port}/socket`, {
        headers: {
          upgrade: "websocket",
          connection: "Upgrade",
          "sec-websocket-key": "dGhlIHNhbXBsZSBub25jZQ==",
          "sec-websocket-version": "13",
          "sec-websocket-protocol": "chat.example.com",
        },
      });
      assertEquals(res.status, 400);
      await res.body?.cancel();
    });

    await t.step("SASL over frames, the burst, and the live stream", async () => {
      const c = open(`ws://127.0.0.1:${http.port}/socket`);
      await c.opened;
      assertEquals(c.ws.protocol, "text.ircv3.net");
      for (const l of ["CAP LS 302", "NICK w", "USER w 0 * :w", "CAP REQ :sasl server-time"]) {
        c.ws.send(l);
      }
      await c.waitFor((l) => l.includes(" ACK "));
      c.ws.send("AUTHENTICATE PLAIN");
      await c.waitFor((l) => cmd(l) === "AUTHENTICATE");
      c.ws.send(`AUTHENTICATE ${plain(`${EMAIL}/${s.cid}@gamja`, PASSWORD)}`);
      await c.waitFor((l) => cmd(l) === "903");
      c.ws.send("CAP END");
      await c.waitFor((l) => cmd(l) === "366" && l.includes("#web"));
      assert(c.lines.every((l) => !l.endsWith("\r\n")), "one line per frame, without CR LF");
      await bob.say("#web", "hello websocket");
      const got = await c.waitFor((l) => l.includes("hello websocket"));
      assert(got.startsWith("@time="), got);
      c.ws.send(`PRIVMSG #web :${"x".repeat(MAX_LINE_BYTES + 1)}`);
      await c.waitFor((l) => cmd(l) === "417");
      c.ws.send("PRIVMSG #web :typed in gamja");
      await bob.waitFor((l) => l.command === "PRIVMSG" && l.params[1] === "typed in gamja");
      c.ws.send("QUIT");
      await c.closed;
    });
  } finally {
    await bob.close();
    await http.stop();
    await s.close();
  }
});
