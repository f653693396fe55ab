/**
 * irc/engine/registration.ts: CAP 302 negotiation, SASL PLAIN and EXTERNAL, the greeting, nick
 * collisions and refusals, line by line against a wire that records what is written and told.
 * The acknowledged capabilities are read from a real UpstreamState fed each line first, as the
 * connection feeds it.
 */
import { assert, assertEquals } from "../../../support/assert.ts";
import {
  Registration,
  REGISTRATION_COMMANDS,
  type RegistrationOptions,
} from "../../../../irc/engine/registration.ts";
import { UpstreamState } from "../../../../irc/upstream_state.ts";
import { parseMessage } from "../../../../irc/protocol/message.ts";

function registering(options: Partial<RegistrationOptions> = {}) {
  const written: string[] = [];
  const told: [string, unknown][] = [];
  const upstream = new UpstreamState();
  const r = new Registration({ nick: "alice", username: "al", gecos: "Alice A", ...options }, {
    write: (line) => written.push(line),
    emit: (event, ev) => told.push([event, ev]),
    capEnabled: (name) => upstream.capEnabled(name),
  });
  /** One line from the server: the upstream state sees it, then registration if it is its. */
  const server = (text: string) => {
    const m = parseMessage(text)!;
    upstream.see(m);
    if (REGISTRATION_COMMANDS.has(m.command)) r.handle(m);
  };
  /** What was written since the last call. */
  const out = () => written.splice(0);
  return { r, server, out, told, upstream };
}

Deno.test("registration: CAP LS 302, then the password, nick and user", () => {
  const { r, out } = registering({ password: "secret word" });
  r.start();
  assertEquals(out(), ["CAP LS 302", "PASS :secret word", "NICK alice", "USER al 0 * :Alice A"]);
  const bare = registering();
  bare.r.start();
  assertEquals(bare.out(), ["CAP LS 302", "NICK alice", "USER al 0 * :Alice A"]);
});

Deno.test("registration: a multi-line LS is read whole, the wanted capabilities asked at once", () => {
  const { server, out, told, upstream } = registering();
  server(":irc.test CAP * LS * :multi-prefix sasl=PLAIN foo server-time");
  assertEquals(out(), [], "nothing asked before the last LS line");
  server(":irc.test CAP * LS :echo-message chghost setname bar=baz labeled-response");
  assertEquals(out(), [
    "CAP REQ :multi-prefix server-time echo-message chghost setname labeled-response",
  ]);
  server(":irc.test CAP alice ACK :multi-prefix server-time echo-message");
  assertEquals(out(), [], "three are still unanswered");
  server(":irc.test CAP alice ACK :chghost setname labeled-response");
  assertEquals(out(), ["CAP END"]);
  assert(upstream.capEnabled("echo-message"));
  assertEquals(told, [], "SASL was not asked for, nothing failed");
  // A later LS (nobody asked) changes nothing.
  server(":irc.test 001 alice :Welcome");
  server(":irc.test CAP alice LS :away-notify");
  assertEquals(out(), []);
});

Deno.test("registration: nothing wanted ends the negotiation at once", () => {
  const none = registering();
  none.server(":irc.test CAP * LS :foo bar");
  assertEquals(none.out(), ["CAP END"]);
});

Deno.test("registration: a refused request ends the negotiation without the capabilities", () => {
  const { server, out, upstream } = registering();
  server(":irc.test CAP * LS :away-notify batch");
  assertEquals(out(), ["CAP REQ :away-notify batch"], "in the server's order");
  server(":irc.test CAP * NAK :away-notify batch");
  assertEquals(out(), ["CAP END"]);
  assert(!upstream.capEnabled("batch"));
});

Deno.test("registration: SASL PLAIN, in chunks of 400 bytes, then CAP END on success", () => {
  const password = "p".repeat(600);
  const { server, out, told } = registering({
    sasl: { mechanism: "PLAIN", account: "alice", password },
  });
  server(":irc.test CAP * LS :sasl=PLAIN,EXTERNAL server-time");
  assertEquals(out(), ["CAP REQ :sasl server-time"]);
  server(":irc.test CAP * ACK :sasl server-time");
  assertEquals(out(), ["AUTHENTICATE PLAIN"], "CAP END waits for SASL");
  server("AUTHENTICATE +");
  const sent = out();
  const b64 = btoa(`alice\0alice\0${password}`);
  assertEquals(sent.map((l) => l.slice("AUTHENTICATE ".length)).join(""), b64);
  assertEquals(sent.map((l) => l.length - "AUTHENTICATE ".length), [400, 400, b64.length - 800]);
  server(":irc.test 900 alice alice!al@h alice :You are now logged in as alice");
  assertEquals(out(), ["CAP END"]);
  server(":irc.test 903 alice :SASL authentication successful");
  assertEquals(out(), [], "CAP END once");
  assertEquals(told, []);
});

Deno.test("registration: a SASL payload that ends on a chunk's boundary is closed by a lone +", () => {
  // 300 bytes make exactly 400 characters of base64.
  const password = "x".repeat(300 - "bob\0bob\0".length);
  const { server, out } = registering({ sasl: { mechanism: "PLAIN", account: "bob", password } });
  server(":irc.test CAP * LS :sasl");
  server(":irc.test CAP * ACK :sasl");
  out();
  server("AUTHENTICATE +");
  const sent = out();
  assertEquals(sent.length, 2);
  assertEquals(sent[0].length, "AUTHENTICATE ".length + 400);
  assertEquals(sent[1], "AUTHENTICATE +");
});

Deno.test("registration: SASL EXTERNAL answers the server's + with an empty response", () => {
  const { server, out, told } = registering({ sasl: { mechanism: "EXTERNAL" } });
  server(":irc.test CAP * LS :sasl=EXTERNAL");
  server(":irc.test CAP * ACK :sasl");
  assertEquals(out(), ["CAP REQ :sasl", "AUTHENTICATE EXTERNAL"]);
  server("AUTHENTICATE +");
  assertEquals(out(), ["AUTHENTICATE +"]);
  server(":irc.test 904 alice :SASL authentication failed");
  assertEquals(out(), ["CAP END"]);
  assertEquals(told, [["sasl failed", { reason: "fail" }]]);
});

Deno.test("registration: SASL that cannot happen is told as failed", () => {
  // The server has no SASL at all.
  const missing = registering({ sasl: { mechanism: "PLAIN", account: "a", password: "b" } });
  missing.server(":irc.test CAP * LS :server-time");
  missing.server(":irc.test CAP * ACK :server-time");
  assertEquals(missing.told, [["sasl failed", { reason: "capability_missing" }]]);
  assertEquals(missing.out(), ["CAP REQ :server-time", "CAP END"]);
  // The server refuses the capability.
  const refused = registering({ sasl: { mechanism: "PLAIN", account: "a", password: "b" } });
  refused.server(":irc.test CAP * LS :sasl");
  refused.server(":irc.test CAP * NAK :sasl");
  assertEquals(refused.told, [["sasl failed", { reason: "capability_missing" }]]);
  // The server offers other mechanisms only (SASL 3.2's value).
  const other = registering({ sasl: { mechanism: "EXTERNAL" } });
  other.server(":irc.test CAP * LS :sasl=PLAIN,SCRAM-SHA-256");
  other.server(":irc.test CAP * ACK :sasl");
  assertEquals(other.told[0], ["sasl failed", { reason: "unsupported_mechanism" }]);
  assert(!other.out().some((l) => l.startsWith("AUTHENTICATE")));
  // A server that knows no CAP greets without SASL.
  const old = registering({ sasl: { mechanism: "PLAIN", account: "a", password: "b" } });
  old.server(":irc.test 421 * CAP :Unknown command");
  old.server(":irc.test 001 alice :Welcome");
  assertEquals(old.told.map(([e]) => e), ["sasl failed", "registered"]);
  // A challenge neither mechanism has: SASL is aborted and has failed.
  const odd = registering({ sasl: { mechanism: "PLAIN", account: "a", password: "b" } });
  odd.server(":irc.test CAP * LS :sasl");
  odd.server(":irc.test CAP * ACK :sasl");
  odd.out();
  odd.server("AUTHENTICATE :challenge");
  assertEquals(odd.out(), ["AUTHENTICATE *", "CAP END"]);
  assertEquals(odd.told, [["sasl failed", { reason: "fail" }]]);
  odd.server(":irc.test 001 a :Welcome");
  assertEquals(odd.told.length, 2, "told once");
});

Deno.test("registration: capabilities the server adds later are asked for, once", () => {
  const { server, out } = registering();
  server(":irc.test CAP * LS :server-time");
  server(":irc.test CAP * ACK :server-time");
  server(":irc.test 001 alice :Welcome");
  out();
  server(":irc.test CAP alice NEW :away-notify server-time unknown-thing");
  assertEquals(out(), ["CAP REQ :away-notify"], "server-time is on already");
  server(":irc.test CAP alice ACK :away-notify");
  assertEquals(out(), [], "no CAP END after registration");
});

Deno.test("registration: the greeting, nick collisions and refusals are told", () => {
  const { server, told } = registering();
  server(":irc.test 433 * alice :Nickname is already in use");
  server(":irc.test 436 * alice :Nickname collision");
  server(":irc.test 437 * alice :Nick/channel is temporarily unavailable");
  server(":irc.test 432 * al!ce :Erroneous nickname");
  server(":irc.test 464 * :Password incorrect");
  server(":irc.test 465 * :You are banned from this server");
  server("ERROR :Closing Link: alice (K-lined)");
  server(":irc.test 001 alice_ :Welcome to the test network");
  const inUse = { nick: "alice", reason: undefined };
  assertEquals(told, [
    ["nick in use", { ...inUse, reason: "Nickname is already in use" }],
    ["nick in use", { ...inUse, reason: "Nickname collision" }],
    ["nick in use", { ...inUse, reason: "Nick/channel is temporarily unavailable" }],
    ["nick invalid", { nick: "al!ce", reason: "Erroneous nickname" }],
    ["irc error", { error: "password_mismatch" }],
    ["irc error", { error: "banned_from_network", reason: "You are banned from this server" }],
    ["irc error", { error: "irc", reason: "Closing Link: alice (K-lined)" }],
    ["registered", { nick: "alice_" }],
  ]);
});

Deno.test("registration: a hostile LS of thousands of capabilities is read to a bound", () => {
  const { server, out } = registering();
  const many = Array.from({ length: 5000 }, (_, i) => `cap${i}`).join(" ");
  server(`:irc.test CAP * LS :${many} server-time`);
  // server-time is past the bound: the negotiation ends without it.
  assertEquals(out(), ["CAP END"]);
});
