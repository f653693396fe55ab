import { assert, assertEquals, assertThrows } from "../support/assert.ts";
import { ConfigError, flagsToEnv, loadConfig, parseConfig } from "../../config.ts";
import { DEFAULT_TIMING, FAST_TIMING } from "../../irc/engine/timing.ts";

Deno.test("config: defaults", () => {
  const c = parseConfig({});
  assert(c.home.endsWith("/local/parley"));
  assertEquals(c.listen.href, "http://127.0.0.1:3000/");
  assertEquals(c.baseUrl.href, "http://127.0.0.1:3000/");
  assertEquals(c.maxUploadSize, 40_000_000);
  assertEquals(c.connectDelay, 4000);
  assertEquals(c.logLevel, "info");
  assertEquals(c.reverseProxy, false);
  assertEquals(c.embedAllowPrivate, false);
  assertEquals(c.secret, undefined);
});

Deno.test("config: every variable is read and validated", () => {
  const c = parseConfig({
    PARLEY_HOME: "/tmp/x",
    PARLEY_LISTEN: "http://0.0.0.0:8080",
    PARLEY_BASE_URL: "https://chat.example.com/",
    PARLEY_REVERSE_PROXY: "1",
    PARLEY_SECRET: "0123456789abcdef0123",
    PARLEY_MAX_UPLOAD_SIZE: "1000",
    PARLEY_CONNECT_DELAY: "0.5",
    PARLEY_LOG_LEVEL: "DEBUG",
    PARLEY_DEFAULT_CONNECTION: "irc://irc.example.org/%23x",
    PARLEY_EMBED_ALLOW_PRIVATE: "true",
    PARLEY_UPDATE_URL: "",
  });
  assertEquals(c.home, "/tmp/x");
  assertEquals(c.listen.port, "8080");
  assertEquals(c.baseUrl.protocol, "https:");
  assertEquals(c.reverseProxy, true);
  assertEquals(c.secret, "0123456789abcdef0123");
  assertEquals(c.maxUploadSize, 1000);
  assertEquals(c.connectDelay, 500);
  assertEquals(c.logLevel, "debug");
  assertEquals(c.embedAllowPrivate, true);
  assertEquals(c.updateUrl, "");
});

Deno.test("config: bad values give a message naming the variable", () => {
  const cases: [Record<string, string>, string][] = [
    [{ PARLEY_LISTEN: "ftp://x" }, "PARLEY_LISTEN"],
    [{ PARLEY_LISTEN: "not a url" }, "PARLEY_LISTEN"],
    [{ PARLEY_LISTEN: "https://127.0.0.1:3443" }, "PARLEY_TLS_CERT"],
    [{ PARLEY_MAX_UPLOAD_SIZE: "big" }, "PARLEY_MAX_UPLOAD_SIZE"],
    [{ PARLEY_CONNECT_DELAY: "-1" }, "PARLEY_CONNECT_DELAY"],
    [{ PARLEY_LOG_LEVEL: "loud" }, "PARLEY_LOG_LEVEL"],
    [{ PARLEY_REVERSE_PROXY: "maybe" }, "PARLEY_REVERSE_PROXY"],
    [{ PARLEY_SECRET: "short" }, "PARLEY_SECRET"],
    [{ PARLEY_DEFAULT_CONNECTION: "http://x" }, "PARLEY_DEFAULT_CONNECTION"],
  ];
  for (const [env, name] of cases) {
    const err = assertThrows(() => parseConfig(env));
    assert(err instanceof ConfigError, JSON.stringify(env));
    assert(err.message.includes(name), `${err.message} should name ${name}`);
  }
});

Deno.test("config: flags override the environment and unknown flags are refused", () => {
  assertEquals(flagsToEnv(["--home", "/a", "--log-level=warn"]), {
    PARLEY_HOME: "/a",
    PARLEY_LOG_LEVEL: "warn",
  });
  assertThrows(() => flagsToEnv(["--nope", "1"]));
  assertThrows(() => flagsToEnv(["--home"]));
  assertThrows(() => flagsToEnv(["stray"]));
});

Deno.test("config: the secret is generated once and kept with mode 0600", async () => {
  const home = await Deno.makeTempDir();
  try {
    const dir = `${home}/data`;
    const a = await loadConfig([], { PARLEY_HOME: dir });
    const b = await loadConfig([], { PARLEY_HOME: dir });
    assertEquals(a.secret, b.secret);
    assert(a.secret.length >= 32);
    assertEquals((await Deno.stat(`${dir}/secret`)).mode! & 0o777, 0o600);
    const c = await loadConfig(["--secret", "configured-secret-1234"], { PARLEY_HOME: dir });
    assertEquals(c.secret, "configured-secret-1234");
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("config: the IRC timings are read once here, PARLEY_TEST_FAST_IRC=1 picks the fast set", () => {
  assertEquals(parseConfig({}).ircTiming, DEFAULT_TIMING);
  assertEquals(parseConfig({ PARLEY_TEST_FAST_IRC: "1" }).ircTiming, FAST_TIMING);
  assertEquals(parseConfig({ PARLEY_TEST_FAST_IRC: "0" }).ircTiming, DEFAULT_TIMING);
  assert(assertThrows(() => parseConfig({ PARLEY_TEST_FAST_IRC: "fast" })) instanceof ConfigError);
});
