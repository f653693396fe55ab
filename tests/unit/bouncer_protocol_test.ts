/**
 * The bouncer's pure parts: CAP LS 302 and REQ, SASL PLAIN's chunks, what each client sees of a
 * line by its capabilities. (Reading and writing lines is irc_protocol_message_test's; the server's
 * state, irc_upstream_state_test's.)
 */
import { assert, assertEquals } from "../support/assert.ts";
import { parseMessage } from "../../irc/protocol/message.ts";
import { Caps, OFFERED } from "../../bouncer/caps.ts";
import { Sasl } from "../../bouncer/sasl.ts";
import { forClient } from "../../bouncer/filter.ts";
import { parseIdentity } from "../../bouncer/auth.ts";

Deno.test("bouncer caps: LS 302 gives values; REQ is all or nothing", () => {
  const plain = new Caps();
  const words = plain.ls(0).flat();
  assert(words.includes("sasl") && !words.some((w) => w.includes("=")));
  const c = new Caps();
  const ls = c.ls(302).flat();
  assert(ls.includes("sasl=PLAIN"));
  for (
    const cap of ["draft/chathistory", "draft/read-marker", "echo-message", "labeled-response"]
  ) {
    assert(ls.includes(cap), cap);
  }
  assert(c.has("cap-notify"), "302 implies cap-notify");
  const lines = new Caps().ls(302);
  assert(lines.every((l) => l.join(" ").length <= 380), "each CAP LS line fits");
  assertEquals(lines.flat().length, OFFERED.length, "every capability, once, over the lines");
  assertEquals(c.request("server-time bogus"), false);
  assert(!c.has("server-time"));
  assertEquals(c.request("server-time batch"), true);
  assert(c.has("server-time") && c.has("batch"));
  assertEquals(c.request("-batch"), true);
  assert(!c.has("batch"));
});

Deno.test("bouncer sasl: 400-byte chunks, + ends an exact multiple, bounded", () => {
  const b64 = (s: string) => btoa(s);
  const s = new Sasl();
  assertEquals(s.step("PLAIN").kind, "continue");
  const payload = b64(`\0a@b.c/net\0${"p".repeat(289)}`);
  assertEquals(payload.length, 400);
  assertEquals(s.step(payload).kind, "more");
  const done = s.step("+");
  assertEquals(done, { kind: "credentials", identity: "a@b.c/net", password: "p".repeat(289) });
  assertEquals(new Sasl().step("EXTERNAL").kind, "mechanisms", "offered over TLS only");
  const big = new Sasl();
  big.step("PLAIN");
  let last = "";
  for (let i = 0; i < 10 && last !== "failed"; i++) last = big.step("A".repeat(400)).kind;
  assertEquals(last, "failed");
  const bad = new Sasl();
  bad.step("PLAIN");
  assertEquals(bad.step("!!!").kind, "failed");
  const aborted = new Sasl();
  aborted.step("PLAIN");
  assertEquals(aborted.step("*").kind, "aborted");
});

Deno.test("bouncer sasl: EXTERNAL over TLS, with or without an authorization identity", () => {
  const tls = () => true;
  assertEquals(new Sasl(tls).mechanisms, "PLAIN,EXTERNAL");
  assertEquals(new Sasl().mechanisms, "PLAIN");
  const none = new Sasl(tls);
  assertEquals(none.step("external").kind, "continue");
  assert(none.active);
  assertEquals(none.step("+"), { kind: "external", identity: "" });
  assert(!none.active);
  const named = new Sasl(tls);
  named.step("EXTERNAL");
  assertEquals(named.step(btoa("a@b.c/net@phone")), {
    kind: "external",
    identity: "a@b.c/net@phone",
  });
  const bad = new Sasl(tls);
  bad.step("EXTERNAL");
  assertEquals(bad.step(btoa("a\0b")).kind, "failed");
});

Deno.test("bouncer identity: EMAIL/NETWORK[@CLIENT]", () => {
  assertEquals(parseIdentity("jane@example.com/irc-libera@phone"), {
    email: "jane@example.com",
    network: "irc-libera",
    client: "phone",
  });
  assertEquals(parseIdentity("jane@example.com/irc-libera"), {
    email: "jane@example.com",
    network: "irc-libera",
    client: "",
  });
  assertEquals(parseIdentity("jane@example.com")?.network, "");
  assertEquals(parseIdentity("nobody"), undefined);
  assertEquals(parseIdentity("jane@example.com/net@bad name"), undefined);
});

Deno.test("bouncer filter: each client gets what it negotiated", () => {
  const none = new Caps();
  const all = new Caps();
  all.request("server-time message-tags extended-join multi-prefix away-notify batch");
  const opts = { prefixes: "@+", myNick: "me" };
  const join = parseMessage("@time=t;msgid=m :n!u@h JOIN #c acct :Real Name")!;
  assertEquals(forClient(none, join, opts), ":n!u@h JOIN #c");
  assertEquals(forClient(all, join, opts), "@time=t;msgid=m :n!u@h JOIN #c acct :Real Name");
  const timeOnly = new Caps();
  timeOnly.request("server-time");
  assertEquals(forClient(timeOnly, join, opts), "@time=t :n!u@h JOIN #c");
  const away = parseMessage(":n!u@h AWAY :gone")!;
  assertEquals(forClient(none, away, opts), undefined);
  assert(forClient(all, away, opts));
  for (const cmd of [":n!u@h CHGHOST u2 h2", ":n!u@h SETNAME :x", ":n!u@h ACCOUNT acct"]) {
    assertEquals(forClient(none, parseMessage(cmd)!, opts), undefined, cmd);
  }
  const names = parseMessage(":s 353 me = #c :@+a +b c")!;
  assertEquals(forClient(none, names, opts), ":s 353 me = #c :@a +b c");
  assertEquals(forClient(all, names, opts), ":s 353 me = #c :@+a +b c");
  const invite = parseMessage(":n!u@h INVITE other #c")!;
  assertEquals(forClient(none, invite, opts), undefined);
  assertEquals(forClient(none, parseMessage(":n!u@h INVITE me #c")!, opts), ":n!u@h INVITE me #c");
});
