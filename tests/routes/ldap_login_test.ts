/**
 * The LDAP login (PARLEY_AUTH_LDAP_URL) against a real OpenLDAP on loopback: the directory's
 * password logs a person in and registers them, the first only when PARLEY_ADMIN names them; the
 * directory's password is never kept, so a change there counts at once; with the directory down,
 * the account's own password still works; IRC clients of the listener log in the same way; many
 * logins at once ask the directory a few at a time.
 */
import { assert, assertEquals, assertRejects } from "../support/assert.ts";
import { ConfigError } from "../../config.ts";
import { captureErrors, startApp } from "../support/app.ts";
import { type Directory, startDirectory } from "../support/slapd.ts";
import { authenticate } from "../../bouncer/auth.ts";
import { DIRECTORY_TURNS, DirectoryLogin } from "../../auth/ldap.ts";

const ANN = "ann's directory password";

Deno.test("ldap login: the directory's password logs people in", async (t) => {
  const directory: Directory = await startDirectory();
  const a = await startApp({
    PARLEY_AUTH_LDAP_URL: directory.url,
    PARLEY_ADMIN: "ann@example.com",
  });
  const login = (email: string, password: string) => a.post("/api/user/login", { email, password });
  try {
    await directory.addPerson("ann", ANN);
    await directory.addPerson("bo", "bo's directory password");

    await t.step("on an empty install, only PARLEY_ADMIN is registered, as the admin", async () => {
      const { value: bo, lines } = await captureErrors(() =>
        login("bo@example.com", "bo's directory password")
      );
      assertEquals(bo.status, 400);
      assert(lines.some((l) => l.includes("PARLEY_ADMIN")), lines.join("\n"));
      const ann = await login("ann@example.com", ANN);
      assertEquals(ann.status, 200, JSON.stringify(ann.body));
      assertEquals([ann.body.email, ann.body.roles], ["ann@example.com", ["admin"]]);
    });

    await t.step("a later person is registered without a role", async () => {
      const bo = await login("Bo@Example.com", "bo's directory password");
      assertEquals([bo.status, bo.body.email, bo.body.roles], [200, "bo@example.com", []]);
    });

    await t.step("a wrong password, or someone the directory lacks, is refused", async () => {
      assertEquals((await login("ann@example.com", "not ann's password")).status, 400);
      assertEquals((await login("cy@example.com", "cy's password here")).status, 400);
      // An empty password would be an anonymous bind, which the directory accepts.
      assertEquals((await login("ann@example.com", "")).status, 400);
      assertEquals((await a.request("/api/users")).status, 401);
    });

    await t.step(
      "the directory's password is not kept: a change there counts at once",
      async () => {
        await directory.setPassword("ann", "ann's newer password");
        assertEquals((await login("ann@example.com", ANN)).status, 400);
        assertEquals((await login("ann@example.com", "ann's newer password")).status, 200);
      },
    );

    await t.step("IRC clients of the listener log in with it too", async () => {
      const deps = a.deps;
      const ok = await authenticate(deps, "bo@example.com", "bo's directory password", "::1");
      assert(typeof ok === "object" && ok.user.email === "bo@example.com", String(ok));
      assertEquals(await authenticate(deps, "bo@example.com", "wrong password", "::1"), "invalid");
      assertEquals(await authenticate(deps, "bo@example.com", "", "::1"), "invalid");
    });

    await t.step("with the directory down, the account's own password still works", async () => {
      // Bo sets a password of Parley's own, in a session the directory's password opened.
      const bo = await login("bo@example.com", "bo's directory password");
      const cookie = bo.headers.getSetCookie()[0].split(";")[0];
      const set = await a.post("/api/user/bo%40example.com", {
        password: "bo's own parley password",
      }, { cookie });
      assertEquals(set.status, 200, JSON.stringify(set.body));
      await directory.stop();
      const { value: down, lines } = await captureErrors(() =>
        login("bo@example.com", "bo's directory password")
      );
      assertEquals(down.status, 400);
      assert(lines.some((l) => l.includes("could not be asked")), lines.join("\n"));
      assertEquals((await login("bo@example.com", "bo's own parley password")).status, 200);
    });
  } finally {
    await a.close();
    await directory.close();
  }
});

Deno.test("ldap login: the entry a search by the email finds", async (t) => {
  const directory: Directory = await startDirectory();
  const settings = {
    PARLEY_AUTH_LDAP_URL: directory.url,
    PARLEY_AUTH_LDAP_SEARCH_BASE: "dc=example,dc=com",
    PARLEY_AUTH_LDAP_BIND_DN: directory.admin.dn,
    PARLEY_AUTH_LDAP_BIND_PASSWORD: directory.admin.password,
    PARLEY_ADMIN: "john.doe@example.com",
  };
  const a = await startApp(settings);
  const login = (email: string, password: string) => a.post("/api/user/login", { email, password });
  try {
    // Names that the email does not give: only a search finds them.
    await directory.addPerson("jdoe", "john's directory password", "john.doe@example.com");
    await directory.addPerson("twin1", "the twins' password", "twin@example.com");
    await directory.addPerson("twin2", "the twins' password", "twin@example.com");

    await t.step("the one entry with the email binds, and is registered", async () => {
      const john = await login("john.doe@example.com", "john's directory password");
      assertEquals(john.status, 200, JSON.stringify(john.body));
      assertEquals([john.body.email, john.body.roles], ["john.doe@example.com", ["admin"]]);
      assertEquals((await login("john.doe@example.com", "not john's")).status, 400);
    });

    await t.step("two entries with one email: nobody is guessed", async () => {
      const { value: twin, lines } = await captureErrors(() =>
        login("twin@example.com", "the twins' password")
      );
      assertEquals(twin.status, 400);
      assert(lines.some((l) => l.includes("several entries")), lines.join("\n"));
    });
  } finally {
    await a.close();
  }

  const wrong = await startApp({ ...settings, PARLEY_AUTH_LDAP_BIND_PASSWORD: "not the password" });
  try {
    await t.step("a search account the directory refuses is warned of", async () => {
      const { value: john, lines } = await captureErrors(() =>
        wrong.post("/api/user/login", {
          email: "john.doe@example.com",
          password: "john's directory password",
        })
      );
      assertEquals(john.status, 400);
      assert(lines.some((l) => l.includes("could not be asked")), lines.join("\n"));
    });
  } finally {
    await wrong.close();
    await directory.close();
  }
});

Deno.test("ldap login: ldaps:// with a CA of one's own", async (t) => {
  const directory: Directory = await startDirectory({ tls: true });
  const ldaps = directory.ldaps!;
  await directory.addPerson("ann", ANN);
  const settings = { PARLEY_AUTH_LDAP_URL: ldaps.url, PARLEY_ADMIN: "ann@example.com" };
  try {
    await t.step("a certificate no known CA signed is not trusted", async () => {
      const a = await startApp(settings);
      try {
        const { value: ann, lines } = await captureErrors(() =>
          a.post("/api/user/login", { email: "ann@example.com", password: ANN })
        );
        assertEquals(ann.status, 400);
        assert(lines.some((l) => l.includes("could not be asked")), lines.join("\n"));
      } finally {
        await a.close();
      }
    });

    await t.step("with PARLEY_AUTH_LDAP_CA naming its CA, the login binds", async () => {
      const a = await startApp({ ...settings, PARLEY_AUTH_LDAP_CA: ldaps.caFile });
      try {
        const ann = await a.post("/api/user/login", { email: "ann@example.com", password: ANN });
        assertEquals([ann.status, ann.body.email], [200, "ann@example.com"]);
        // A CA file that cannot be read stops the start, naming the setting.
        const config = { ...a.deps.config, ldapCa: `${ldaps.caFile}.missing` };
        const err = await assertRejects(() => DirectoryLogin.open({ ...a.deps, config }));
        assert(err instanceof ConfigError && err.message.includes("PARLEY_AUTH_LDAP_CA"), `${err}`);
      } finally {
        await a.close();
      }
    });
  } finally {
    await directory.close();
  }
});

/**
 * A TCP proxy in front of the directory that counts the logins through it: a connection waits
 * for the directory from when it is made until the directory first answers (the bind's answer:
 * no search is made here). How many waited at once at most, and how many connections in all.
 */
function countingProxy(port: number) {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const seen = { waiting: 0, most: 0, all: 0 };
  const piped: Promise<unknown>[] = [];
  const pipe = async (down: Deno.Conn) => {
    seen.all++;
    seen.most = Math.max(seen.most, ++seen.waiting);
    const up = await Deno.connect({ hostname: "127.0.0.1", port });
    let answered = false;
    const firstAnswer = new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, out) {
        if (!answered) seen.waiting--;
        answered = true;
        out.enqueue(chunk);
      },
    });
    await Promise.allSettled([
      down.readable.pipeTo(up.writable),
      up.readable.pipeThrough(firstAnswer).pipeTo(down.writable),
    ]);
    if (!answered) seen.waiting--;
  };
  (async () => {
    // Each connection on its own: the directory is connected to for all of them at once.
    for await (const down of listener) piped.push(pipe(down));
  })().catch(() => {/* closed */});
  return {
    url: `ldap://127.0.0.1:${(listener.addr as Deno.NetAddr).port}`,
    seen,
    close: async () => {
      listener.close();
      await Promise.allSettled(piped);
    },
  };
}

Deno.test("ldap login: many logins at once ask the directory a few at a time", async (t) => {
  const directory: Directory = await startDirectory();
  const proxy = countingProxy(Number(new URL(directory.url).port));
  const a = await startApp({ PARLEY_AUTH_LDAP_URL: proxy.url, PARLEY_ADMIN: "ann@example.com" });
  const saved = { ...DIRECTORY_TURNS };
  try {
    await directory.addPerson("ann", ANN);
    const ldap = await DirectoryLogin.open(a.deps);
    // A flood of wrong passwords, as from many addresses (the throttle counts per address).
    const flood = (n: number) =>
      Promise.all(Array.from({ length: n }, (_, i) => ldap.login("ann@example.com", `guess ${i}`)));

    await t.step("at most a few binds at once; the others wait their turn", async () => {
      assertEquals((await flood(40)).filter(Boolean), []);
      assertEquals(proxy.seen.all, 40, "every login asked the directory in its turn");
      assert(proxy.seen.most <= DIRECTORY_TURNS.atOnce, `${proxy.seen.most} at once`);
      assert(proxy.seen.most > 1, "several at once");
      assertEquals((await ldap.login("ann@example.com", ANN))?.email, "ann@example.com");
    });

    await t.step("past the waiting room, the directory is not asked", async () => {
      DIRECTORY_TURNS.waiting = 2;
      const before = proxy.seen.all;
      const { value, lines } = await captureErrors(() => flood(30));
      assertEquals(value.filter(Boolean), []);
      assertEquals(proxy.seen.all - before, DIRECTORY_TURNS.atOnce + 2);
      assert(lines.some((l) => l.includes("too many logins at once")), lines.join("\n"));
      // The turns were all given back.
      assertEquals((await ldap.login("ann@example.com", ANN))?.email, "ann@example.com");
    });

    await t.step("a login that waits too long for its turn does not ask", async () => {
      Object.assign(DIRECTORY_TURNS, saved, { waitMs: 0 });
      const before = proxy.seen.all;
      await flood(30);
      assert(proxy.seen.all - before < 30, `${proxy.seen.all - before} asked`);
      assertEquals((await ldap.login("ann@example.com", ANN))?.email, "ann@example.com");
    });
  } finally {
    Object.assign(DIRECTORY_TURNS, saved);
    await a.close();
    await proxy.close();
    await directory.close();
  }
});
