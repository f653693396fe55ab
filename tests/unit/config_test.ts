import { assert, assertEquals, assertThrows } from "../support/assert.ts";
import {
  ConfigError,
  configWarnings,
  flagsToEnv,
  listenPort,
  loadConfig,
  OPTIONS,
  parseCommandLine,
  parseConfig,
} from "../../config.ts";
import { DEFAULT_TIMING, FAST_TIMING } from "../../irc/engine/timing.ts";

Deno.test("config: defaults", () => {
  const c = parseConfig({});
  assert(c.home.endsWith("/local/parley"));
  assertEquals(c.listen.href, "http://127.0.0.1:3000/");
  assertEquals(c.baseUrl.href, "http://127.0.0.1:3000/");
  assertEquals(c.maxUploadSize, 40_000_000);
  assertEquals(c.connectDelay, 4000);
  assertEquals(c.logLevel, "info");
  assertEquals(c.logFormat, "logfmt");
  assertEquals(c.metrics, false);
  assertEquals(c.reverseProxy, false);
  assertEquals(c.embedAllowPrivate, false);
  assertEquals(c.secret, undefined);
});

Deno.test("config: a listen URL without a port means its scheme's", () => {
  const port = (listen: string) =>
    listenPort(
      parseConfig({ PARLEY_LISTEN: listen, PARLEY_TLS_CERT: "c", PARLEY_TLS_KEY: "k" }).listen,
    );
  assertEquals(port("https://0.0.0.0:443"), 443);
  assertEquals(port("https://0.0.0.0"), 443);
  assertEquals(port("http://0.0.0.0:80"), 80);
  assertEquals(port("http://0.0.0.0"), 80);
  assertEquals(port("https://0.0.0.0:8443"), 8443);
  assertEquals(port("http://[::1]:3000"), 3000);
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
    PARLEY_LOG_FORMAT: "JSON",
    PARLEY_METRICS: "1",
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
  assertEquals(c.logFormat, "json");
  assertEquals(c.metrics, true);
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
    [{ PARLEY_LOG_FORMAT: "xml" }, "PARLEY_LOG_FORMAT"],
    [{ PARLEY_METRICS: "sometimes" }, "PARLEY_METRICS"],
    [{ PARLEY_METRICS: "https://127.0.0.1:9464" }, "PARLEY_METRICS"],
    [{ PARLEY_REVERSE_PROXY: "maybe" }, "PARLEY_REVERSE_PROXY"],
    [{ PARLEY_SECRET: "short" }, "PARLEY_SECRET"],
    [{ PARLEY_DEFAULT_CONNECTION: "http://x" }, "PARLEY_DEFAULT_CONNECTION"],
    // Trusted only from a proxy: without one, anyone could name any user in it.
    [{ PARLEY_AUTH_HEADER: "X-User" }, "PARLEY_REVERSE_PROXY"],
    [{ PARLEY_AUTH_HEADER: "X User", PARLEY_REVERSE_PROXY: "1" }, "PARLEY_AUTH_HEADER"],
    [{ PARLEY_ADMIN: "root@example.com" }, "PARLEY_AUTH_HEADER"],
    [{ PARLEY_AUTH_LOGOUT_URL: "https://auth.example.com/logout" }, "PARLEY_AUTH_HEADER"],
    [{ PARLEY_AUTH_LDAP_URL: "http://ldap.example.com" }, "PARLEY_AUTH_LDAP_URL"],
    [
      { PARLEY_AUTH_LDAP_URL: "ldap://ldap", PARLEY_AUTH_LDAP_DN: "dc=example" },
      "PARLEY_AUTH_LDAP_DN",
    ],
    [{ PARLEY_AUTH_LDAP_SEARCH_BASE: "dc=example,dc=com" }, "PARLEY_AUTH_LDAP_URL"],
    [{ PARLEY_AUTH_LDAP_BIND_DN: "cn=admin" }, "PARLEY_AUTH_LDAP_SEARCH_BASE"],
    [
      {
        PARLEY_AUTH_LDAP_URL: "ldap://ldap",
        PARLEY_AUTH_LDAP_SEARCH_BASE: "dc=example",
        PARLEY_AUTH_LDAP_SEARCH_FILTER: "(uid=ann)",
      },
      "PARLEY_AUTH_LDAP_SEARCH_FILTER",
    ],
    [
      {
        PARLEY_AUTH_LDAP_URL: "ldap://ldap",
        PARLEY_AUTH_LDAP_SEARCH_BASE: "dc=example",
        PARLEY_AUTH_LDAP_BIND_DN: "cn=admin",
      },
      "PARLEY_AUTH_LDAP_BIND_PASSWORD",
    ],
    [
      {
        PARLEY_AUTH_HEADER: "X-User",
        PARLEY_REVERSE_PROXY: "1",
        PARLEY_AUTH_LOGOUT_URL: "ftp://x",
      },
      "PARLEY_AUTH_LOGOUT_URL",
    ],
    [
      { PARLEY_AUTH_HEADER: "X-User", PARLEY_REVERSE_PROXY: "1", PARLEY_ADMIN: "root" },
      "PARLEY_ADMIN",
    ],
  ];
  for (const [env, name] of cases) {
    const err = assertThrows(() => parseConfig(env));
    assert(err instanceof ConfigError, JSON.stringify(env));
    assert(err.message.includes(name), `${err.message} should name ${name}`);
  }
});

Deno.test("config: PARLEY_AUTH_HEADER and PARLEY_ADMIN", () => {
  assertEquals(parseConfig({}).authHeader, undefined);
  const c = parseConfig({
    PARLEY_REVERSE_PROXY: "1",
    PARLEY_AUTH_HEADER: " X-Authenticated-User ",
    PARLEY_ADMIN: "Root@Example.com",
  });
  // Hono reads request headers by their lower-case name; emails identify users lower-cased.
  assertEquals([c.authHeader, c.admin], ["x-authenticated-user", "root@example.com"]);
  const logout = (url: string) =>
    parseConfig({
      PARLEY_REVERSE_PROXY: "1",
      PARLEY_AUTH_HEADER: "X-User",
      PARLEY_AUTH_LOGOUT_URL: url,
    })
      .authLogoutUrl;
  // oauth2-proxy's sign-out is a path of the same host; Authelia's, a URL of its own.
  assertEquals(logout("/oauth2/sign_out"), "/oauth2/sign_out");
  assertEquals(logout("https://auth.example.com/logout"), "https://auth.example.com/logout");
  assertEquals(parseConfig({}).authLogoutUrl, undefined);
  // PARLEY_ADMIN serves the LDAP login too.
  assertEquals(
    parseConfig({ PARLEY_AUTH_LDAP_URL: "ldaps://ldap.example.com", PARLEY_ADMIN: "a@b.c" }).admin,
    "a@b.c",
  );
});

Deno.test("config: PARLEY_METRICS is 0, 1, or an address of the metrics' own", () => {
  assertEquals(parseConfig({ PARLEY_METRICS: "0" }).metrics, false);
  const own = parseConfig({ PARLEY_METRICS: "http://127.0.0.1:9464" });
  assertEquals([own.metrics, own.metricsListen?.host], [true, "127.0.0.1:9464"]);
  assertEquals(parseConfig({ PARLEY_METRICS: "1" }).metricsListen, undefined);
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

Deno.test("config: secrets are read from files named by --secret-file or a _FILE variable", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const home = `${dir}/data`;
    await Deno.writeTextFile(`${dir}/secret`, "from-a-file-0123456789\n");
    await Deno.writeTextFile(`${dir}/db`, "postgres://parley:pw@db.example.org/parley\n");
    const byFlag = await loadConfig(["--secret-file", `${dir}/secret`], { PARLEY_HOME: home });
    assertEquals(byFlag.secret, "from-a-file-0123456789");
    const byEnv = await loadConfig([], {
      PARLEY_HOME: home,
      PARLEY_SECRET_FILE: `${dir}/secret`,
      PARLEY_DATABASE_URL_FILE: `${dir}/db`,
    });
    assertEquals(byEnv.secret, "from-a-file-0123456789");
    assertEquals(byEnv.databaseUrl, "postgres://parley:pw@db.example.org/parley");
    const both = await loadConfig(["--secret-file", `${dir}/secret`], {
      PARLEY_HOME: home,
      PARLEY_SECRET: "from-the-environment-0123",
    }).catch((e) => e);
    assert(both instanceof ConfigError && both.message.includes("both set"), String(both));
    const missing = await loadConfig(["--secret-file", `${dir}/nope`], { PARLEY_HOME: home })
      .catch((e) => e);
    assert(missing instanceof ConfigError && missing.message.includes(`${dir}/nope`));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("config: the one option table gives every flag its variable and the file forms", () => {
  for (const o of OPTIONS) {
    assertEquals(flagsToEnv([`--${o.flag}=a=b`]), { [o.env]: "a=b" }, o.flag);
  }
  assertEquals(flagsToEnv(["--database-url-file", "/run/db"]), {
    PARLEY_DATABASE_URL_FILE: "/run/db",
  });
  const line = parseCommandLine(["list", "--email", "a=b", "--email=c=d", "--merge", "--home=/x"], [
    { name: "email", multiple: true },
    { name: "merge", boolean: true },
  ]);
  assertEquals(line.positional, ["list"]);
  assertEquals(line.options.get("email"), ["a=b", "c=d"]);
  assert(line.switches.has("merge"));
  assertEquals(line.env, { PARLEY_HOME: "/x" });
  assertEquals(
    parseConfig({}).maxUploadSize,
    Number(OPTIONS.find((o) => o.flag === "max-upload-size")!.default),
  );
});

Deno.test("config: a listen URL is a scheme, host and port; a path is for PARLEY_BASE_URL", () => {
  assertEquals(parseConfig({ PARLEY_LISTEN: "http://127.0.0.1:3000/" }).listen.port, "3000");
  for (const listen of ["http://127.0.0.1:3000/parley", "http://127.0.0.1:3000/?x=1"]) {
    const err = assertThrows(() => parseConfig({ PARLEY_LISTEN: listen }));
    assert(err instanceof ConfigError && err.message.startsWith("PARLEY_LISTEN: "), err.message);
  }
});

Deno.test("config: warnings for unknown variables and settings that do nothing", () => {
  const env = {
    PARLEY_LSTEN: "http://0.0.0.0:3000",
    PARLEY_SECRET_FILE: "/run/secret",
    PARLEY_TEST_FAST_IRC: "1",
    PARLEY_STORE_COPY_TO: "postgres://x@y/z",
    PARLEY_BASE_URL: "https://chat.example.org/parley/",
    PARLEY_TLS_CERT: "/etc/cert.pem",
    PARLEY_IRC_TLS_KEY: "/etc/key.pem",
    HOME: "/root",
  };
  const warnings = configWarnings(parseConfig(env), env);
  assertEquals(warnings.length, 3, warnings.join("\n"));
  assert(warnings[0].startsWith("PARLEY_LSTEN is not a Parley setting"), warnings[0]);
  assert(warnings[1].startsWith("PARLEY_TLS_CERT and PARLEY_TLS_KEY are not used"), warnings[1]);
  assert(warnings[2].startsWith("PARLEY_IRC_TLS_CERT and PARLEY_IRC_TLS_KEY"), warnings[2]);
  // Every option and a secret's file form are known; a base URL with a path is served under it.
  const known = Object.fromEntries(OPTIONS.map((o) => [o.env, ""]));
  assertEquals(configWarnings(parseConfig({}), { ...known, PARLEY_DATABASE_URL_FILE: "" }), []);
});

Deno.test("config: a base URL's path may not start with a path Parley answers itself", () => {
  assertEquals(
    parseConfig({ PARLEY_BASE_URL: "https://example.org/irc-web/" }).baseUrl.pathname,
    "/irc-web/",
  );
  for (
    const [url, why] of [
      ["https://example.org/api/", "may not start with /api"],
      ["https://example.org/chat/parley", "may not start with /chat"],
      ["https://example.org/parley/?x=1", "must be only a scheme, host, port and path"],
    ]
  ) {
    const err = assertThrows(() => parseConfig({ PARLEY_BASE_URL: url }));
    assert(err.message.includes(why), err.message);
  }
});

Deno.test("config: a port past 65535 and a bad PARLEY_METRICS say what is wrong", () => {
  const port = assertThrows(() => parseConfig({ PARLEY_LISTEN: "http://127.0.0.1:99999" }));
  assertEquals(port.message, "PARLEY_LISTEN: the port 99999 is past 65535");
  const metrics = assertThrows(() => parseConfig({ PARLEY_METRICS: "2" }));
  assertEquals(
    metrics.message,
    'PARLEY_METRICS must be 0, 1 or the http://HOST:PORT of a listener of its own, not "2"',
  );
});

Deno.test("config: PARLEY_IDENTD_LISTEN", () => {
  const at = (v: string) => parseConfig({ PARLEY_IDENTD_LISTEN: v }).identdListen;
  assertEquals(parseConfig({}).identdListen, undefined);
  assertEquals(at(""), undefined);
  assertEquals(at("0.0.0.0"), { hostname: "0.0.0.0", port: 113 });
  assertEquals(at("0.0.0.0:1113"), { hostname: "0.0.0.0", port: 1113 });
  assertEquals(at("[::]:113"), { hostname: "::", port: 113 });
  assertEquals(at("localhost"), { hostname: "localhost", port: 113 });
  for (const bad of ["0.0.0.0:0", "0.0.0.0:70000", "ident://0.0.0.0:113", "a b", ":113"]) {
    const err = assertThrows(() => at(bad));
    assert(err instanceof ConfigError, bad);
    assert(String(err.message).startsWith("PARLEY_IDENTD_LISTEN:"), err.message);
  }
  assertEquals(flagsToEnv(["--identd-listen", "0.0.0.0:113"]).PARLEY_IDENTD_LISTEN, "0.0.0.0:113");
});
