/** A The Lounge network as a Parley connection URL (import/thelounge.ts). */
import { assertEquals } from "../../support/assert.ts";
import { networkUrl } from "../../../import/thelounge.ts";

Deno.test("the lounge networks: scheme, port, password or SASL, identity, TLS checks", () => {
  assertEquals(networkUrl({ host: "irc.example.org", port: 6667 }), "irc://irc.example.org:6667");
  assertEquals(
    networkUrl({ host: "irc.example.org", port: 6697, tls: true, rejectUnauthorized: false }),
    "ircs://irc.example.org:6697?tls_verify=0",
  );
  // SASL PLAIN puts the account in the URL, and wins over a server password; a "%" in it stays
  // itself once the URL is read back.
  const sasl = networkUrl({
    host: "h",
    sasl: "plain",
    saslAccount: "me@x",
    saslPassword: "p:w/d%41",
    password: "server",
  });
  assertEquals(sasl, "irc://me%40x:p%3Aw%2Fd%2541@h?sasl=plain");
  assertEquals(decodeURIComponent(new URL(sasl).password), "p:w/d%41");
  assertEquals(networkUrl({ host: "h", sasl: "external" }), "irc://h?sasl=external");
  assertEquals(networkUrl({ host: "h", password: "server pw" }), "irc://:server%20pw@h");
  assertEquals(
    networkUrl({ host: "h", nick: "al", username: "al", realname: "Al Ice" }),
    "irc://h?nick=al&realname=Al+Ice",
    "a username equal to the nick is left out",
  );
  assertEquals(
    networkUrl({ host: "h", nick: "al", username: "alice" }),
    "irc://h?nick=al&username=alice",
  );
  // What a distrusted file may hold instead: no port, a port of another type, no host.
  assertEquals(networkUrl({ host: "h", port: "x" }), "irc://h");
  assertEquals(networkUrl({ host: "h", port: 6697.5 }), "irc://h");
  assertEquals(networkUrl({ host: "h", port: -1, tls: "yes" }), "irc://h");
  assertEquals(networkUrl({ host: 42 }), "irc://invalid");
  assertEquals(networkUrl({ host: "h", rejectUnauthorized: false }), "irc://h", "no TLS to check");
});
