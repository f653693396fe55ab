/** PARLEY_IRC_LISTEN: off by default, plain IRC on loopback only unless allowed, TLS needs its files. */
import { assert, assertEquals, assertThrows } from "../support/assert.ts";
import { ConfigError, flagsToEnv, parseConfig } from "../../config.ts";

Deno.test("config: the IRC listener", () => {
  assertEquals(parseConfig({}).ircListen, []);
  assertEquals(parseConfig({ PARLEY_IRC_LISTEN: "irc://127.0.0.1:6667" }).ircListen, [
    { tls: false, hostname: "127.0.0.1", port: 6667 },
  ]);
  assertEquals(parseConfig({ PARLEY_IRC_LISTEN: "irc://localhost" }).ircListen[0].port, 6667);
  const both = parseConfig({
    PARLEY_IRC_LISTEN: "ircs://0.0.0.0:6697, irc://[::1]:6667",
    PARLEY_IRC_TLS_CERT: "/c.pem",
    PARLEY_IRC_TLS_KEY: "/k.pem",
  });
  assertEquals(both.ircListen.map((a) => [a.tls, a.hostname, a.port]), [
    [true, "0.0.0.0", 6697],
    [false, "[::1]", 6667],
  ]);
  assertEquals([both.ircTlsCert, both.ircTlsKey], ["/c.pem", "/k.pem"]);
  const plain = assertThrows(() => parseConfig({ PARLEY_IRC_LISTEN: "irc://0.0.0.0:6667" }));
  assert(plain instanceof ConfigError);
  assert(plain.message.includes("loopback"), plain.message);
  assertEquals(
    parseConfig({ PARLEY_IRC_LISTEN: "irc://0.0.0.0:6667", PARLEY_IRC_LISTEN_PLAIN_ANYWHERE: "1" })
      .ircListen[0].hostname,
    "0.0.0.0",
  );
  for (const bad of ["ircs://0.0.0.0:6697", "http://127.0.0.1:1", "irc://127.0.0.1:1/x"]) {
    const err = assertThrows(() => parseConfig({ PARLEY_IRC_LISTEN: bad }));
    assert(err instanceof ConfigError && err.message.startsWith("PARLEY_IRC_LISTEN"), bad);
  }
  assertEquals(flagsToEnv(["--irc-listen", "irc://127.0.0.1:6667"]), {
    PARLEY_IRC_LISTEN: "irc://127.0.0.1:6667",
  });
});
