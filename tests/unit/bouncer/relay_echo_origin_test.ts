/**
 * With a server that does not echo, an attached client's own line comes back to it from the bus
 * once stored, told by the origin token its send carried: never by its text, so the web client's
 * line with the same words is not taken for it.
 */
import { assertEquals } from "../../support/assert.ts";
import { type Downstream, Hub } from "../../../bouncer/relay.ts";
import { Caps } from "../../../bouncer/caps.ts";
import { parseMessage } from "../../../irc/protocol/message.ts";
import type { BusMessageEvent } from "../../../protocol/events.ts";
import { formatMicros } from "../../../lib/time.ts";
import { msgidOf } from "../../../lib/msgid.ts";

Deno.test("relay: the web client's line with a pending client line's words takes no label", () => {
  const hub = new Hub(1, "c1");
  hub.line({ message: parseMessage(":irc.test 001 alice :Welcome")! });
  hub.line({ message: parseMessage(":alice!a@h JOIN #chan")! });
  const caps = new Caps();
  caps.restore(["echo-message", "labeled-response", "message-tags", "server-time"], 302);
  const lines: string[] = [];
  const d: Downstream = { caps, write: (line) => void lines.push(line), quit: () => {} };
  hub.attach(d);
  const pending = { client: d, conversation: "#chan", text: "same words", label: "l1" };
  hub.awaitEcho(pending);
  const ts = Date.UTC(2026, 10, 29, 7, 0, 0) * 1000;
  const stored = (n: number, origin?: string): BusMessageEvent => ({
    event: "message",
    connection_id: "c1",
    conversation_id: "#chan",
    from: "alice",
    message: "same words",
    ts: formatMicros(ts + n),
    type: "private",
    highlight: false,
    msgid: msgidOf(3, ts + n),
    ...(origin ? { origin } : {}),
  });
  // The web client's line, stored first: the client's pending line is still to come.
  hub.stored(stored(1));
  assertEquals(lines.length, 1);
  assertEquals(parseMessage(lines[0])!.tags.get("label"), undefined, lines[0]);
  hub.stored(stored(2, (pending as { id?: string }).id));
  assertEquals(lines.length, 2);
  assertEquals(parseMessage(lines[1])!.tags.get("label"), "l1", lines[1]);
});
