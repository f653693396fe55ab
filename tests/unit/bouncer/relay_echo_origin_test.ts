/**
 * With a server that does not echo, an attached client's own line comes back to it from the bus
 * once stored, told by the origin token its send carried: never by its text, so the web client's
 * line with the same words is not taken for it. With a server that echoes without
 * labeled-response, every chat line written (the web client's too) takes its place in the
 * server's order, so an echo is told by the line written at its place.
 */
import { assertEquals } from "../../support/assert.ts";
import { type Downstream, Hub } from "../../../bouncer/relay.ts";
import { Caps } from "../../../bouncer/caps.ts";
import { parseMessage } from "../../../irc/protocol/message.ts";
import type { BusMessageEvent } from "../../../protocol/events.ts";
import { formatMicros } from "../../../protocol/time.ts";
import { msgidOf } from "../../../lib/msgid.ts";

/** A hub with the user in #chan and one client attached, and the lines the client is sent. */
function attachedHub(serverEchoes: boolean) {
  const hub = new Hub(1, "c1");
  if (serverEchoes) hub.state.caps.add("echo-message");
  hub.line({ message: parseMessage(":irc.test 001 alice :Welcome")! });
  hub.line({ message: parseMessage(":alice!a@h JOIN #chan")! });
  const caps = new Caps();
  caps.restore(["echo-message", "labeled-response", "message-tags", "server-time"], 302);
  const lines: string[] = [];
  const d: Downstream = { caps, write: (line) => void lines.push(line), quit: () => {} };
  hub.attach(d);
  return { hub, d, lines };
}

Deno.test("relay: the web client's line with a pending client line's words takes no label", () => {
  const { hub, d, lines } = attachedHub(false);
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

/** A hub whose server echoes without labeled-response, the user in #chan, one client attached. */
function orderedHub() {
  const { hub, d, lines } = attachedHub(true);
  let n = 0;
  /** The server's echo of the user's line, stored. */
  const echo = (text: string) => {
    const ts = Date.UTC(2026, 10, 29, 7, 0, 0) * 1000 + ++n;
    hub.line({
      message: parseMessage(`:alice!a@h PRIVMSG #chan :${text}`)!,
      produced: { kind: "stored", msgid: msgidOf(3, ts), ts },
    });
  };
  /** What the client was sent: each line's text and label. */
  const seen = () =>
    lines.map((l) => parseMessage(l)!).filter((m) => m.command === "PRIVMSG")
      .map((m) => [m.params[1], m.tags.get("label")]);
  return { hub, d, echo, seen };
}

Deno.test("relay: a web line written before a client's takes its echo, unlabeled", () => {
  const { hub, d, echo, seen } = orderedHub();
  hub.wrote("#chan", undefined);
  const pending = hub.awaitEcho({ client: d, conversation: "#chan", label: "l1" });
  hub.wrote("#CHAN", pending.id);
  echo("web words");
  echo("client words");
  assertEquals(seen(), [["web words", undefined], ["client words", "l1"]]);
});

Deno.test("relay: every part of a client's split line keeps its place in the order", () => {
  const { hub, d, echo, seen } = orderedHub();
  const pending = hub.awaitEcho({ client: d, conversation: "#chan", label: "l2" });
  hub.wrote("#chan", pending.id);
  hub.wrote("#chan", pending.id);
  hub.wrote("#chan", undefined);
  echo("part one");
  echo("part two");
  echo("web words");
  assertEquals(seen(), [["part one", "l2"], ["part two", undefined], ["web words", undefined]]);
});

Deno.test("relay: a refused web line gives up its place; the client's echo keeps its label", () => {
  const { hub, d, echo, seen } = orderedHub();
  hub.wrote("#chan", undefined);
  const pending = hub.awaitEcho({ client: d, conversation: "#chan", label: "l3" });
  hub.wrote("#chan", pending.id);
  hub.line({ message: parseMessage(":irc.test 404 alice #chan :Cannot send to channel")! });
  echo("client words");
  assertEquals(seen(), [["client words", "l3"]]);
});

Deno.test("relay: a line to another target does not take a client's place", () => {
  const { hub, d, echo, seen } = orderedHub();
  hub.wrote("bob", undefined);
  const pending = hub.awaitEcho({ client: d, conversation: "#chan", label: "l4" });
  hub.wrote("#chan", pending.id);
  echo("client words");
  assertEquals(seen(), [["client words", "l4"]]);
});

Deno.test("relay: the user's line to a service, kept in the server's conversation, is said as said", () => {
  const { hub, d, lines } = attachedHub(false);
  const pending = hub.awaitEcho({
    client: d,
    conversation: "NickServ",
    label: "l2",
  });
  const ts = Date.UTC(2026, 10, 29, 7, 0, 0) * 1000;
  const stored = (to?: string, origin?: string): BusMessageEvent => ({
    event: "message",
    connection_id: "c1",
    conversation_id: "",
    from: "alice",
    message: "identify x",
    ts: formatMicros(ts),
    type: "private",
    highlight: false,
    msgid: msgidOf(1, ts),
    ...(to ? { to } : {}),
    ...(origin ? { origin } : {}),
  });
  // Another line of the server's conversation: nobody's to say again.
  hub.stored(stored());
  assertEquals(lines, []);
  // The web client's line to NickServ: every attached client sees it.
  hub.stored(stored("NickServ"));
  const web = parseMessage(lines[0])!;
  assertEquals([web.command, web.params, web.tags.get("label")], [
    "PRIVMSG",
    ["NickServ", "identify x"],
    undefined,
  ]);
  // The client's own, its echo with its label.
  hub.stored(stored("NickServ", (pending as { id?: string }).id));
  const own = parseMessage(lines[1])!;
  assertEquals([own.params, own.tags.get("label")], [["NickServ", "identify x"], "l2"]);
});
