/** Unit tests of the IRC engine's pure parts: URLs, casefolding, highlights, splitting, timing. */
import { assert, assertEquals, assertThrows } from "../../support/assert.ts";
import { DomainError } from "../../../lib/errors.ts";
import {
  newConnectionId,
  nickFromEmail,
  parseIrcUrl,
  publicUrl,
  sameTarget,
} from "../../../irc/url.ts";
import { ircLower, isChannel } from "../../../lib/casefold.ts";
import { isHighlight } from "../../../irc/chat/highlight.ts";
import { byteLength, splitText, textBudget } from "../../../irc/engine/split.ts";
import { TokenBucket } from "../../../irc/engine/token_bucket.ts";
import { backoffDelay } from "../../../irc/engine/backoff.ts";
import { joinLines } from "../../../irc/manager.ts";
import { publicAddress, TransportRefusal } from "../../../irc/socket/target.ts";
import { lineTime } from "../../../irc/chat/server_time.ts";
import { ctcpAnswer } from "../../../irc/protocol/ctcp.ts";

Deno.test("parseIrcUrl reads every part of an irc:// URL", () => {
  const u = parseIrcUrl(
    "ircs://Jane:p%40ss@IRC.Libera.Chat:7000/%23parley?nick=jane&realname=Jane%20D&username=jd&tls_verify=0&sasl=plain",
  );
  assertEquals(u, {
    host: "irc.libera.chat",
    port: 7000,
    tls: true,
    tlsVerify: false,
    user: "Jane",
    password: "p@ss",
    nick: "jane",
    realname: "Jane D",
    username: "jd",
    sasl: "plain",
    conversation: "#parley",
  });
});

Deno.test("parseIrcUrl picks TLS and default ports from the scheme and ?tls", () => {
  assertEquals(parseIrcUrl("irc://example.org").port, 6667);
  assertEquals(parseIrcUrl("irc://example.org").tls, false);
  assertEquals(parseIrcUrl("ircs://example.org").port, 6697);
  assertEquals(parseIrcUrl("irc://example.org?tls=1").tls, true);
  assertEquals(parseIrcUrl("irc://example.org?tls=1").port, 6697);
  assertEquals(parseIrcUrl("ircs://example.org?tls=0").tls, false);
  assertEquals(parseIrcUrl("ircs://example.org").tlsVerify, true);
  assertEquals(parseIrcUrl("irc://[::1]:6667").host, "[::1]");
  assertEquals(parseIrcUrl("irc://h?sasl=external").sasl, "external");
});

function assertUrlRefused(bad: string) {
  // The caller names the input it parsed; without a path the URL text itself is the input.
  for (const [path, expected] of [[undefined, "/"], ["/body/url", "/body/url"]]) {
    const err = assertThrows(() => parseIrcUrl(bad, path), bad);
    assert(err instanceof DomainError, bad);
    assertEquals([err.kind, err.path], ["invalid", expected], bad);
  }
}

Deno.test("parseIrcUrl refuses bad URLs as invalid input at the path its caller gives", () => {
  for (
    const bad of [
      "http://example.org",
      "irc://",
      "nonsense",
      "irc://h?nick=1abc",
      "irc://h?nick=has space",
      "irc://h?tls=maybe",
      "irc://h?sasl=scram",
      "irc://h?sasl=plain",
    ]
  ) assertUrlRefused(bad);
});

Deno.test("parseIrcUrl refuses CR, LF and NUL in every part that becomes an IRC line", () => {
  for (
    const bad of [
      "irc://h?nick=a&realname=Jane%0D%0AQUIT",
      "irc://h?nick=a&realname=Jane%00",
      "irc://h?nick=a&username=jd%0AQUIT",
      "irc://h?nick=a&username=jd%00",
      "irc://jane:pw%0D%0AQUIT@h?nick=a",
      "irc://jane:pw%00x@h?nick=a",
      "irc://ja%0Ane:pw@h?nick=a",
      "irc://h/%23x%00QUIT?nick=a",
      "irc://h?nick=a%0D",
      "irc://jane:%E0%A4%A@h?nick=a",
      "irc://h/%?nick=a",
    ]
  ) assertUrlRefused(bad);
});

Deno.test("publicUrl shows neither a password (even with @ in it) nor a channel key", () => {
  const url = publicUrl("irc://svc:Secr3t@pass@irc.example.org:6667/%23convos%20s3cret?nick=j");
  assertEquals(url, "irc://svc:@irc.example.org:6667/%23convos?nick=j");
  assertEquals(publicUrl("ircs://h/%23a,%23b%20key"), "irc://h:6697/%23a?tls=1");
  assertEquals(publicUrl("ircs://h/%?nick=j"), "irc://h:6697?nick=j&tls=1");
  assertEquals(publicUrl("not a url"), "");
});

Deno.test("publicUrl drops the password and keeps the rest", () => {
  assertEquals(
    publicUrl("irc://jane:secret@irc.example.org:6667/%23x?nick=jane"),
    "irc://jane:@irc.example.org:6667/%23x?nick=jane",
  );
  assertEquals(publicUrl("irc://irc.example.org?nick=j"), "irc://irc.example.org?nick=j");
  assertEquals(publicUrl("irc://:pw@h:1?nick=j"), "irc://h:1?nick=j");
  assert(!publicUrl("irc://u:pw@h?nick=j").includes("pw"));
});

Deno.test("publicUrl gives ircs:// as Convos's client reads it: irc:// with tls=1 and the port", () => {
  assertEquals(
    publicUrl("ircs://irc.libera.chat:6697/%23parley"),
    "irc://irc.libera.chat:6697/%23parley?tls=1",
  );
  assertEquals(publicUrl("ircs://h?nick=j&tls_verify=0"), "irc://h:6697?nick=j&tls_verify=0&tls=1");
  assertEquals(publicUrl("IRCS://h:7000?tls=1"), "irc://h:7000?tls=1");
  assertEquals(publicUrl("ircs://h?tls=0"), "irc://h:6667?tls=0");
  // The shown URL means what the stored one means.
  for (
    const stored of ["ircs://h/%23a?nick=j", "ircs://h:7000", "ircs://h?tls=0", "irc://h?tls=1"]
  ) {
    const a = parseIrcUrl(stored);
    const b = parseIrcUrl(publicUrl(stored));
    assertEquals([b.host, b.port, b.tls, b.nick, b.conversation], [
      a.host,
      a.port,
      a.tls,
      a.nick,
      a.conversation,
    ]);
  }
});

Deno.test("connection ids are unique per user", () => {
  assertEquals(newConnectionId("irc.libera.chat", []), "irc-libera");
  assertEquals(newConnectionId("irc.libera.chat", ["irc-libera"]), "irc-libera-2");
  assertEquals(
    newConnectionId("127.0.0.1", ["irc-localhost", "irc-localhost-2"]),
    "irc-localhost-3",
  );
});

Deno.test("sameTarget compares host, port and nick (casefolded)", () => {
  const a = parseIrcUrl("irc://h:1?nick=Bob[1]");
  assert(sameTarget(a, parseIrcUrl("irc://u:pw@h:1?nick=bob{1}")));
  assert(!sameTarget(a, parseIrcUrl("irc://h:2?nick=bob[1]")));
  assert(!sameTarget(a, parseIrcUrl("irc://h:1?nick=carol")));
});

Deno.test("nicks come from the URL or the email", () => {
  assertEquals(parseIrcUrl("irc://h/%23a?tls=0&nick=zed").nick, "zed");
  assertEquals(nickFromEmail("Jane.Doe@example.com"), "Jane_Doe");
  assertEquals(nickFromEmail("42@example.com"), "u42");
});

Deno.test("ircLower uses rfc1459 casemapping by default", () => {
  // rfc1459: [ ] \ ^ are the upper-case forms of { } | ~.
  assertEquals(ircLower("#Parley[Dev]\\^"), "#parley{dev}|~");
  assertEquals(ircLower("Nick[A]", "ascii"), "nick[a]");
  assertEquals(ircLower("A^~", "strict-rfc1459"), "a^~");
  assert(isChannel("#x"));
  assert(!isChannel("bob"));
  assert(!isChannel("#"));
});

Deno.test("highlights: the nick or a keyword as a whole word, any private message", () => {
  const mentions = (text: string, nick: string) =>
    isHighlight({ text, nick, keywords: [], isPrivate: false });
  assert(mentions("alice: hi", "alice"));
  assert(mentions("hi ALICE!", "alice"));
  assert(mentions("ping @alice.", "alice"));
  assert(!mentions("malice is not a mention", "alice"));
  assert(!mentions("alice_ is someone else", "alice"));
  assert(mentions("[bot] ready", "[bot]"));
  const base = { nick: "alice", keywords: ["deploy"], isPrivate: false };
  assert(isHighlight({ ...base, text: "Deploy done" }));
  assert(!isHighlight({ ...base, text: "redeployed" }));
  assert(!isHighlight({ ...base, text: "hello all" }));
  assert(isHighlight({ ...base, text: "hello all", isPrivate: true }));
});

Deno.test("splitText breaks at spaces within the byte limit", () => {
  assertEquals(splitText("aaa bbb ccc", 7), ["aaa bbb", "ccc"]);
  assertEquals(splitText("one\ntwo\r\n\nthree", 100), ["one", "two", "three"]);
  assertEquals(splitText("abcdefghij", 4), ["abcd", "efgh", "ij"]);
  // Multi-byte characters are never cut in half.
  const parts = splitText("ééééé", 4);
  assertEquals(parts, ["éé", "éé", "é"]);
  for (const p of splitText("word ".repeat(300), 100)) assert(byteLength(p) <= 100);
  assertEquals(splitText("word ".repeat(300), 100).join(" "), "word ".repeat(300).trim());
});

Deno.test("splitText cuts a long word between grapheme clusters, never inside one", () => {
  const segmenter = new Intl.Segmenter(undefined, { granularity: "grapheme" });
  const clusters = (t: string) => [...segmenter.segment(t)].map((s) => s.segment);
  // A family (25 bytes: four people and three joiners), a flag (8), a thumb with its skin tone
  // (8) and an "e" with a combining accent (3): cut at code points, each would come apart.
  const family = "\u{1F468}\u200D\u{1F469}\u200D\u{1F467}\u200D\u{1F466}";
  const word = `${family}\u{1F1EB}\u{1F1F7}\u{1F44D}\u{1F3FD}e\u0301`.repeat(3);
  for (const max of [26, 30, 33, 40, 50]) {
    const parts = splitText(word, max);
    assertEquals(parts.join(""), word, `nothing lost at ${max}`);
    for (const p of parts) assert(byteLength(p) <= max, `${max}: a part fits`);
    assertEquals(parts.flatMap(clusters), clusters(word), `${max}: every cluster whole`);
  }
  assertEquals(splitText("e\u0301".repeat(4), 6), ["e\u0301e\u0301", "e\u0301e\u0301"]);
  // A single cluster longer than a line is still cut (between code points) rather than sent whole.
  const zalgo = "a" + "\u0301".repeat(40);
  for (const p of splitText(zalgo, 20)) assert(byteLength(p) <= 20);
});

Deno.test("textBudget leaves room for the relayed prefix", () => {
  const budget = textBudget("PRIVMSG", "#parley", "alice");
  assert(budget < 512 - "PRIVMSG #parley :".length - 2 - "alice".length);
  assert(budget > 350);
});

Deno.test("TokenBucket allows a burst, then one line per interval", () => {
  let now = 0;
  const bucket = new TokenBucket(3, 1000, () => now);
  assertEquals([bucket.take(), bucket.take(), bucket.take()], [0, 0, 0]);
  assertEquals(bucket.take(), 1000);
  now = 500;
  assertEquals(bucket.take(), 500);
  now = 1000;
  assertEquals(bucket.take(), 0);
  now = 100_000;
  assertEquals(Math.floor(bucket.available()), 3);
});

Deno.test("backoffDelay doubles with jitter and stops at the maximum", () => {
  const timing = { backoffBase: 4000, backoffMax: 600_000 };
  assertEquals(backoffDelay(0, timing, () => 0), 2000);
  assertEquals(backoffDelay(0, timing, () => 1), 4000);
  assertEquals(backoffDelay(3, timing, () => 1), 32_000);
  assertEquals(backoffDelay(30, timing, () => 1), 600_000);
  assertEquals(backoffDelay(30, timing, () => 0), 300_000);
  const a = backoffDelay(2, timing, () => 0.25);
  assert(a >= 8000 && a <= 16_000);
});

Deno.test("joinLines packs channels into few JOIN lines", () => {
  assertEquals(joinLines([]), []);
  assertEquals(joinLines(["#a", "#b"]), ["JOIN #a,#b"]);
  const many = Array.from({ length: 100 }, (_, i) => `#channel-${i}`);
  const lines = joinLines(many);
  assert(lines.length > 1 && lines.length < 10);
  for (const l of lines) assert(l.length <= 410);
  assertEquals(lines.flatMap((l) => l.slice(5).split(",")), many);
});

Deno.test("publicAddress checks every resolved address and returns a checked one", async () => {
  const dns = (answers: Record<string, string[]>) => (host: string) =>
    Promise.resolve(answers[host] ?? []);
  const resolve = dns({
    "irc.example.org": ["93.184.216.34"],
    "inside.example.org": ["10.0.0.5"],
    "mixed.example.org": ["93.184.216.34", "127.0.0.1"],
    "v6.example.org": ["fe80::1"],
  });
  assertEquals(await publicAddress("irc.example.org", resolve), "93.184.216.34");
  assertEquals(await publicAddress("93.184.216.34", resolve), "93.184.216.34");
  for (const host of ["inside.example.org", "mixed.example.org", "v6.example.org", "localhost"]) {
    const err = await publicAddress(host, resolve).then(() => undefined, (e) => e);
    assert(err instanceof TransportRefusal && err.permanent, host);
    assert(err.message.includes("ask an admin"), err.message);
  }
  for (const host of ["127.0.0.1", "[::1]", "192.168.0.1", "169.254.169.254", "0x7f.1"]) {
    const err = await publicAddress(host, resolve).then(() => undefined, (e) => e);
    assert(err instanceof TransportRefusal && err.permanent, host);
  }
  const missing = await publicAddress("nowhere.example.org", resolve).then(() => 0, (e) => e);
  assert(missing instanceof TransportRefusal && !missing.permanent, "a DNS failure is retried");
});

Deno.test("lineTime believes a server time only when negotiated and inside the window", () => {
  const now = Date.UTC(2026, 0, 1) * 1000;
  const hourAgo = now / 1000 - 3_600_000;
  assertEquals(lineTime(hourAgo, true, now), hourAgo * 1000);
  assertEquals(lineTime(hourAgo, false, now), now);
  for (const bad of [Date.UTC(3100, 0, 1), Date.UTC(1000, 0, 1), Date.UTC(1989, 11, 31), NaN]) {
    assertEquals(lineTime(bad, true, now), now, String(bad));
  }
  assertEquals(lineTime(now / 1000 + 3_600_000, true, now), now + 3_600_000_000, "an hour ahead");
  assertEquals(lineTime("2025-01-01", true, now), now);
});

Deno.test("ctcpAnswer answers the usual requests, briefly", () => {
  assertEquals(ctcpAnswer("version", "", "Parley 1"), "VERSION Parley 1");
  assertEquals(ctcpAnswer("PING", "x".repeat(500), "P"), `PING ${"x".repeat(64)}`);
  assertEquals(ctcpAnswer("CLIENTINFO", "", "P"), "CLIENTINFO CLIENTINFO PING TIME VERSION");
  assertEquals(ctcpAnswer("DCC", "SEND x", "P"), undefined);
});
