/**
 * bouncer/sasl.ts: one client's SASL exchange over AUTHENTICATE, PLAIN's and EXTERNAL's payloads,
 * their chunks and bounds, and what every malformed step leads to.
 */
import { assert, assertEquals } from "../../support/assert.ts";
import { Sasl } from "../../../bouncer/sasl.ts";

/** Base64 bytes of one AUTHENTICATE chunk, as the spec says. */
const CHUNK = 400;

const b64 = (s: string) => btoa(String.fromCharCode(...new TextEncoder().encode(s)));

/** A PLAIN exchange: the mechanism, then the payload's chunks; the last step's result. */
function plain(payload: string) {
  const s = new Sasl();
  assertEquals(s.step("PLAIN"), { kind: "continue" });
  return s.step(b64(payload));
}

Deno.test("sasl: mechanisms are PLAIN, and EXTERNAL only over TLS", () => {
  assertEquals(new Sasl().mechanisms, "PLAIN");
  assertEquals(new Sasl(() => true).mechanisms, "PLAIN,EXTERNAL");
  assertEquals(new Sasl().step("EXTERNAL"), { kind: "mechanisms" });
  assertEquals(new Sasl().step("SCRAM-SHA-256"), { kind: "mechanisms" });
  assertEquals(new Sasl(() => true).step("external"), { kind: "continue" });
  assertEquals(new Sasl().step("plain"), { kind: "continue" }, "the mechanism in any case");
});

Deno.test("sasl: PLAIN's identity is authzid when given, else authcid; UTF-8 passwords", () => {
  assertEquals(plain("\0jane@example.com/irc-x\0pässword"), {
    kind: "credentials",
    identity: "jane@example.com/irc-x",
    password: "pässword",
  });
  assertEquals(plain("jane@example.com/irc-x@phone\0jane\0pw"), {
    kind: "credentials",
    identity: "jane@example.com/irc-x@phone",
    password: "pw",
  });
});

Deno.test("sasl: malformed PLAIN payloads fail", () => {
  for (
    const payload of [
      "jane\0pw", // two parts
      "a\0b\0c\0d", // four
      "\0\0pw", // no identity
      "\0jane\0", // no password
    ]
  ) assertEquals(plain(payload), { kind: "failed" }, JSON.stringify(payload));
  const s = new Sasl();
  s.step("PLAIN");
  assertEquals(s.step("not base64!"), { kind: "failed" });
  const bad = new Sasl();
  bad.step("PLAIN");
  assertEquals(bad.step(btoa("\0jane\0\xff\xfe")), { kind: "failed" }, "not UTF-8");
  const empty = new Sasl();
  empty.step("PLAIN");
  assertEquals(empty.step("+"), { kind: "failed" }, "an empty PLAIN payload");
});

Deno.test("sasl: a full chunk waits for more; + ends a payload of exact chunks", () => {
  const password = "p".repeat(600);
  const payload = b64(`\0jane@example.com\0${password}`);
  const s = new Sasl();
  s.step("PLAIN");
  const chunks = payload.match(new RegExp(`.{1,${CHUNK}}`, "g"))!;
  for (const c of chunks.slice(0, -1)) assertEquals(s.step(c), { kind: "more" });
  const last = chunks.at(-1)!;
  if (last.length === CHUNK) {
    assertEquals(s.step(last), { kind: "more" });
    assertEquals(s.step("+").kind, "credentials");
  } else {assertEquals(s.step(last), {
      kind: "credentials",
      identity: "jane@example.com",
      password,
    });}
  assertEquals(s.active, false, "the exchange is over");
});

Deno.test("sasl: too long a chunk or payload fails, and the exchange starts over", () => {
  const s = new Sasl();
  s.step("PLAIN");
  assertEquals(s.step("A".repeat(CHUNK + 1)), { kind: "failed" });
  assertEquals(s.active, false);
  s.step("PLAIN");
  for (let i = 0; i < 6; i++) assertEquals(s.step("A".repeat(CHUNK)), { kind: "more" }, `${i}`);
  assertEquals(s.step("AAAA"), { kind: "failed" }, "past 2,400 bytes");
  // A new exchange begins at the mechanism again.
  assertEquals(s.step("PLAIN"), { kind: "continue" });
  assertEquals(s.step(b64("\0a@b\0c")).kind, "credentials");
});

Deno.test("sasl: * aborts at any step", () => {
  const s = new Sasl();
  assertEquals(s.step("*"), { kind: "aborted" });
  s.step("PLAIN");
  assertEquals(s.active, true);
  s.step("A".repeat(CHUNK));
  assertEquals(s.step("*"), { kind: "aborted" });
  assertEquals(s.active, false);
  assertEquals(s.step("PLAIN"), { kind: "continue" }, "the buffer went with it");
  assertEquals(s.step(b64("\0x@y\0z")), { kind: "credentials", identity: "x@y", password: "z" });
});

Deno.test("sasl: EXTERNAL's authorization identity, none, or a malformed one", () => {
  const ext = () => {
    const s = new Sasl(() => true);
    s.step("EXTERNAL");
    return s;
  };
  assertEquals(ext().step("+"), { kind: "external", identity: "" });
  assertEquals(ext().step(b64("/irc-x@phone")), { kind: "external", identity: "/irc-x@phone" });
  assertEquals(ext().step(b64("a\nb")), { kind: "failed" }, "a line break");
  assertEquals(ext().step(b64("a\0b")), { kind: "failed" }, "a NUL");
  assertEquals(ext().step("%%%"), { kind: "failed" }, "not base64");
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
