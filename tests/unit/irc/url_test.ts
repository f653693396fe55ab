/** irc/url.ts: an irc:// URL read and shown, connection ids, the same target, nicks. */
import { assert, assertEquals, assertThrows } from "../../support/assert.ts";
import { DomainError } from "../../../lib/errors.ts";
import {
  newConnectionId,
  nickFromEmail,
  parseIrcUrl,
  publicUrl,
  sameTarget,
} from "../../../irc/url.ts";

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
    conversationKey: "",
  });
});

Deno.test("parseIrcUrl: a channel's key follows its name in the path", () => {
  const of = (url: string) => {
    const u = parseIrcUrl(url);
    return [u.conversation, u.conversationKey];
  };
  assertEquals(of("irc://h/%23chan%20s3cret"), ["#chan", "s3cret"]);
  assertEquals(of("irc://h/%23chan,s3cret"), ["#chan", "s3cret"]);
  // The old IRC URL drafts' flags, a second channel, a key no server takes: no key.
  assertEquals(of("irc://h/%23chan,needkey"), ["#chan", ""]);
  assertEquals(of("irc://h/%23a,%23b"), ["#a", ""]);
  assertEquals(of(`irc://h/%23chan%20${"k".repeat(101)}`), ["#chan", ""]);
  assertEquals(of("irc://h/%23chan%20a%01b"), ["#chan", ""]);
  assertEquals(of("irc://h/%23chan"), ["#chan", ""]);
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
