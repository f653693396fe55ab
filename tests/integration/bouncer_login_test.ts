/**
 * Logging in through the bouncer listener, and what it refuses: wrong credentials (904 and a
 * disconnect, counted by the web's login throttle), PASS, no password, an unknown mechanism,
 * silence before registration, and a user's limit of attached clients (bounds on clients
 * registering at once: bouncer_registering_test.ts); and guesses sent together, each counted
 * before any is verified.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { EMAIL, PASSWORD, setupBouncer } from "../support/bouncer.ts";
import { BouncerClient, plain } from "../support/bouncer_client.ts";
import { ApiClient } from "../support/api.ts";
import { startApp } from "../support/app.ts";
import { freePort } from "../support/ports.ts";
import { startServer } from "../support/server.ts";
import { startBouncer } from "../../bouncer/mod.ts";
import { refusalText } from "../../bouncer/session.ts";
import { LOGIN_LIMITS, LoginThrottle } from "../../http/throttle.ts";

/** Starts a SASL exchange up to `AUTHENTICATE +`. */
async function saslStart(port: number): Promise<BouncerClient> {
  const c = await BouncerClient.connect(port);
  await c.send("CAP LS 302");
  await c.send("NICK n");
  await c.send("USER u 0 * :x");
  await c.send("CAP REQ :sasl");
  await c.waitFor((l) => l.command === "CAP" && l.params[1] === "ACK");
  await c.send("AUTHENTICATE PLAIN");
  await c.waitFor((l) => l.command === "AUTHENTICATE");
  return c;
}

Deno.test("bouncer: logins, and what is refused", async (t) => {
  // Silence is dropped after 5 s here; a login still has room on a loaded machine.
  const s = await setupBouncer({ clientsPerUser: 2, registerTimeoutMs: 5_000 });
  try {
    await t.step("a wrong password: 904, then the connection closes", async () => {
      const c = await saslStart(s.port);
      await c.send(`AUTHENTICATE ${plain(`${EMAIL}/${s.cid}`, "wrong")}`);
      await c.waitFor((l) => l.command === "904");
      await c.waitClosed();
      assert(!c.lines.some((l) => l.command === "001"));
    });

    await t.step("a payload in 400-byte chunks, ended by +", async () => {
      // 300 bytes of password make a base64 payload over 400 bytes.
      const c = await saslStart(s.port);
      const b64 = plain(`${EMAIL}/${s.cid}`, "x".repeat(300));
      assert(b64.length > 400 && b64.length < 800);
      await c.send(`AUTHENTICATE ${b64.slice(0, 400)}`);
      await c.send(`AUTHENTICATE ${b64.slice(400)}`);
      await c.waitFor((l) => l.command === "904"); // a wrong password, read whole
      await c.waitClosed();
    });

    await t.step("an unknown mechanism: 908 then 904; AUTHENTICATE * aborts with 906", async () => {
      const c = await BouncerClient.connect(s.port);
      await c.send("CAP REQ :sasl");
      await c.send("AUTHENTICATE SCRAM-SHA-256");
      const list = await c.waitFor((l) => l.command === "908");
      assertEquals(list.params[1], "PLAIN");
      await c.waitFor((l) => l.command === "904");
      await c.send("AUTHENTICATE PLAIN");
      await c.waitFor((l) => l.command === "AUTHENTICATE");
      await c.send("AUTHENTICATE *");
      await c.waitFor((l) => l.command === "906");
      c.close();
    });

    await t.step("too many failed SASL exchanges end the connection", async () => {
      const c = await BouncerClient.connect(s.port);
      await c.send("CAP REQ :sasl");
      for (let i = 0; i < 3; i++) await c.send("AUTHENTICATE NOPE");
      await c.waitClosed();
      assertEquals(c.lines.filter((l) => l.command === "904").length, 3);
    });

    await t.step("PASS with USER naming the connection, and PASS naming it itself", async () => {
      const a = await BouncerClient.connect(s.port);
      await a.send(`PASS :${PASSWORD}`);
      await a.send("NICK n");
      await a.send(`USER ${EMAIL}/${s.cid}@pass 0 * :x`);
      assertEquals((await a.waitFor((l) => l.command === "001")).params[0], "alice");
      const b = await BouncerClient.connect(s.port);
      await b.send(`PASS ${EMAIL}/${s.cid}:${PASSWORD.replaceAll(" ", "_")}`);
      await b.send("NICK n");
      await b.send("USER u 0 * :x");
      await b.waitFor((l) => l.command === "464"); // the password has spaces: this one is wrong
      await b.waitClosed();
      a.close();
      await a.waitClosed();
    });

    await t.step("an app token instead of the password; revoked, it is refused", async () => {
      const made = await s.api.post("/api/tokens", { name: "laptop" });
      assertEquals(made.status, 201);
      const c = await BouncerClient.attach(s.port, `${EMAIL}/${s.cid}@laptop`, made.body.token);
      assertEquals((await c.waitFor((l) => l.command === "001")).params[0], "alice");
      c.close();
      await c.waitClosed();
      assertEquals((await s.api.delete(`/api/tokens/${made.body.id}`)).status, 200);
      const d = await saslStart(s.port);
      await d.send(`AUTHENTICATE ${plain(`${EMAIL}/${s.cid}`, made.body.token)}`);
      await d.waitFor((l) => l.command === "904");
      await d.waitClosed();
    });

    await t.step("no password at all: 464 and closed", async () => {
      const c = await BouncerClient.connect(s.port);
      await c.send("NICK n");
      await c.send("USER u 0 * :x");
      await c.waitFor((l) => l.command === "464");
      await c.waitClosed();
    });

    await t.step("a connection that is not the user's: refused like a wrong password", async () => {
      const c = await saslStart(s.port);
      await c.send(`AUTHENTICATE ${plain(`${EMAIL}/irc-nope`, PASSWORD)}`);
      await c.waitFor((l) => l.command === "904");
      await c.waitClosed();
    });

    await t.step("silence before registration: dropped", async () => {
      const c = await BouncerClient.connect(s.port);
      const err = await c.waitFor((l) => l.command === "ERROR");
      assert(err.params[0].includes("timed out"), err.raw);
      await c.waitClosed();
    });

    await t.step("commands before registration: 451; unknown ones after: 421", async () => {
      const c = await BouncerClient.connect(s.port);
      await c.send("PRIVMSG #x :hi");
      await c.waitFor((l) => l.command === "451");
      c.close();
      const d = await BouncerClient.attach(s.port, `${EMAIL}/${s.cid}`, PASSWORD);
      await d.send("FROBNICATE a b");
      assertEquals((await d.waitFor((l) => l.command === "421")).params[1], "FROBNICATE");
      await d.send("CHATHISTORY LATEST #x * 10");
      await d.waitFor((l) => l.command === "421" && l.params[1] === "CHATHISTORY");
      d.close();
      await d.waitClosed();
    });

    await t.step("a login without a connection says how to name one", async () => {
      const c = await BouncerClient.connect(s.port, "c");
      await c.send(`PASS :${PASSWORD}`);
      await c.send("NICK n");
      await c.send(`USER ${EMAIL} 0 * :x`);
      const refused = await c.waitFor((l) => l.command === "464");
      assert(refused.params[1].includes("EMAIL/CONNECTION_ID"), refused.raw);
      const err = await c.waitFor((l) => l.command === "ERROR");
      assert(err.params[0].includes("log in as EMAIL/CONNECTION_ID"), err.raw);
      await c.waitClosed();
    });

    await t.step("at most clientsPerUser attached at once", async () => {
      const a = await BouncerClient.attach(s.port, `${EMAIL}/${s.cid}`, PASSWORD, [], "a");
      const b = await BouncerClient.attach(s.port, `${EMAIL}/${s.cid}`, PASSWORD, [], "b");
      const c = await BouncerClient.connect(s.port, "c");
      await c.send(`PASS :${PASSWORD}`);
      await c.send("NICK n");
      await c.send(`USER ${EMAIL}/${s.cid} 0 * :x`);
      const err = await c.waitFor((l) => l.command === "ERROR");
      assert(err.params[0].includes("Too many clients"), err.raw);
      await c.waitClosed();
      a.close();
      b.close();
    });

    await t.step("failures count in the web's login throttle", async () => {
      // The last login above succeeded, which forgets earlier failures: five are free, and past
      // them the right password is refused too, here and on the web.
      for (let i = 0; i < 6; i++) {
        const c = await saslStart(s.port);
        await c.send(`AUTHENTICATE ${plain(`${EMAIL}/${s.cid}`, "wrong")}`);
        await c.waitClosed();
      }
      const c = await saslStart(s.port);
      await c.send(`AUTHENTICATE ${plain(`${EMAIL}/${s.cid}`, PASSWORD)}`);
      const refused = await c.waitFor((l) => l.command === "904");
      assert(refused.params[1].includes("Too many"), refused.raw);
      const web = await s.app.post("/api/user/login", { email: EMAIL, password: PASSWORD });
      assertEquals(web.status, 429);
    });
  } finally {
    await s.close();
  }
});

/** Sends one guess with PASS and answers the 464's text (the refusal). */
async function guess(port: number, username: string, password: string): Promise<string> {
  const c = await BouncerClient.connect(port);
  await c.send(`PASS :${password}`);
  await c.send("NICK n");
  await c.send(`USER ${username} 0 * :x`);
  const refused = await c.waitFor((l) => l.command === "464");
  await c.waitClosed();
  return refused.params[1];
}

const counts = (texts: string[]) =>
  texts.reduce((m, t) => ({ ...m, [t]: (m[t] ?? 0) + 1 }), {} as Record<string, number>);

Deno.test("bouncer: guesses sent together are counted before any is verified", async () => {
  const app = await startApp();
  // The free tries of the real limits, and a first wait that no slow machine outlasts: the
  // guesses that get verified are those begun before any other was settled.
  app.deps.loginThrottle = new LoginThrottle({ ...LOGIN_LIMITS, baseDelayMs: 3_600_000 });
  const bouncer = startBouncer(app.deps, {
    addresses: [{ tls: false, hostname: "127.0.0.1", port: 0 }],
    // All 60 registering at once from one address: the bound on those is tested on its own.
    limits: { unregisteredPerAddress: 100 },
  });
  try {
    await app.register(EMAIL, PASSWORD);
    const texts = await Promise.all(
      Array.from({ length: 60 }, (_, i) => guess(bouncer.ports[0], EMAIL, `guess ${i}`)),
    );
    assertEquals(counts(texts), {
      [refusalText("invalid")]: LOGIN_LIMITS.free,
      [refusalText("throttled")]: 60 - LOGIN_LIMITS.free,
    });
  } finally {
    await bouncer.close();
    await app.close();
  }
});

Deno.test("bouncer: the daemon's listener counts guesses at many emails before verifying", async () => {
  const port = freePort();
  const server = await startServer({ env: { PARLEY_IRC_LISTEN: `irc://127.0.0.1:${port}` } });
  try {
    // One address's budget over all emails is 50 failures in 10 minutes, and one address may
    // have 10 clients registering at once. Rounds of 9 guesses sent together spend 45 of the
    // budget; of the next 9, only the 5 begun within it are verified, whatever the order.
    const round = (from: number) =>
      Promise.all(
        Array.from({ length: 9 }, (_, i) => guess(port, `u${from + i}@example.com/net`, "guess")),
      );
    const texts: string[] = [];
    for (let r = 0; r < 6; r++) texts.push(...await round(r * 9));
    assertEquals(counts(texts), {
      [refusalText("invalid")]: LOGIN_LIMITS.addressMax,
      [refusalText("throttled")]: 54 - LOGIN_LIMITS.addressMax,
    });
    // The same throttle as the web's: this address now waits there too.
    const web = await new ApiClient(server.url).post("/api/user/login", {
      email: "someone@example.com",
      password: "guess",
    });
    assertEquals(web.status, 429);
  } finally {
    await server.close();
  }
});
