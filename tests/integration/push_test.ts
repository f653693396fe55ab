// deno-lint-ignore-file no-explicit-any -- API answers are read field by field
/**
 * Web Push end to end: a real ngircd, the real app over a real store, and a local push service
 * (Deno.serve with TLS on loopback) that receives the encrypted POST. The test plays the browser:
 * it holds the subscription's private key and auth secret, checks the VAPID JWT and decrypts the
 * aes128gcm body (RFC 8291). No browser push service can be reached from here.
 */
import { assert, assertEquals, assertStringIncludes } from "../support/assert.ts";
import { startApp } from "../support/app.ts";
import { RawIrcClient } from "../support/irc_client.ts";
import { startIrcServer } from "../support/ngircd.ts";
import { poll } from "../support/poll.ts";
import { pushFor } from "../../push/mod.ts";
import { AutoAway, AWAY_MESSAGE } from "../../push/away.ts";
import { loadVapidKeys, VAPID_FILE } from "../../push/vapid.ts";
import { payloadOf, PUSH_LIMITS } from "../../push/notify.ts";
import type { NotificationEvent } from "../../protocol/events.ts";
import { browserKeys, checkVapid, decrypt, pushService } from "../support/push_service.ts";
import { EventSocket } from "../support/events.ts";

const enc = new TextEncoder();

/** A notification as the bus carries it: bob's private "hi" on irc-x, unless `over` says else. */
function notification(over: Partial<NotificationEvent> = {}): NotificationEvent {
  return {
    event: "notification",
    connection_id: "irc-x",
    conversation_id: "bob",
    from: "bob",
    message: "hi",
    ts: "2026-11-22T10:00:00.000000Z",
    type: "private",
    ...over,
  };
}

Deno.test("push: mentions and private messages reach the browser's push service, encrypted", async (t) => {
  const irc = await startIrcServer();
  // The push service is on loopback: this install allows private addresses (as an intranet would).
  const t0 = await startApp({
    PARLEY_IRC_ALLOW_PRIVATE: "1",
    PARLEY_EMBED_ALLOW_PRIVATE: "1",
    PARLEY_TEST_FAST_IRC: "1",
  });
  const service = await pushService();
  const push = pushFor(t0.deps);
  push.notifier.policy.caCerts = [service.cert];
  const cookie = await t0.register("alice@example.com");
  const uid = (await t0.deps.store.users.byEmail("alice@example.com"))!.id;
  const browser = await browserKeys();
  let bob: RawIrcClient | undefined;
  let created: any;
  const json = (method: string, path: string, body?: unknown) =>
    t0.request(path, {
      method,
      body: body === undefined ? undefined : JSON.stringify(body),
      headers: { cookie, "content-type": "application/json" },
    });
  /** A Parley page open in the browser of the session `cookie`: its /events socket. */
  const openTab = async (cookie: string) => {
    const server = await t0.listen();
    const base = `http://127.0.0.1:${server.port}`;
    const tab = await EventSocket.open({ base, cookieHeader: cookie });
    return { tab, server };
  };
  try {
    await t.step("the VAPID keys are made once, kept private in the data folder", async () => {
      const res = await json("GET", "/api/push");
      assertEquals(res.status, 200);
      assertEquals(res.body.public_key, push.keys.publicKey);
      assertEquals(res.body.auto_away, false);
      const stat = await Deno.stat(`${t0.home}/${VAPID_FILE}`);
      assertEquals((stat.mode ?? 0) & 0o777, 0o600);
      assertEquals(loadVapidKeys(t0.home), push.keys, "a restart keeps the same pair");
    });

    await t.step("bad subscriptions are refused with a pointer to the field", async () => {
      const cases: [unknown, string][] = [
        [{
          endpoint: "http://127.0.0.1/x",
          keys: { p256dh: browser.p256dh, auth: browser.authB64 },
        }, "/body/endpoint"],
        [
          { endpoint: service.url("/a"), keys: { p256dh: "short", auth: browser.authB64 } },
          "/body/keys/p256dh",
        ],
        [{ endpoint: service.url("/a"), keys: { p256dh: browser.p256dh } }, "/body/keys/auth"],
        [{
          endpoint: service.url("/" + "x".repeat(3000)),
          keys: { p256dh: browser.p256dh, auth: browser.authB64 },
        }, "/body/endpoint"],
      ];
      for (const [body, path] of cases) {
        const res = await json("POST", "/api/push/subscriptions", body);
        assertEquals(res.status, 400, JSON.stringify(body).slice(0, 80));
        assertEquals(res.body.errors[0].path, path);
      }
      const anon = await t0.post("/api/push/subscriptions", {});
      assertEquals(anon.status, 401);
    });

    await t.step("a browser subscribes", async () => {
      const res = await json("POST", "/api/push/subscriptions", {
        endpoint: service.url("/push/alice"),
        keys: { p256dh: browser.p256dh, auth: browser.authB64 },
      });
      assertEquals(res.status, 201, JSON.stringify(res.body));
      assertEquals((await json("GET", "/api/push")).body.subscriptions, 1);
    });

    await t.step("a private message on IRC with no browser open is pushed", async () => {
      created = await json("POST", "/api/connections", {
        url: `irc://127.0.0.1:${irc.port}?nick=alice`,
      });
      assertEquals(created.status, 200, JSON.stringify(created.body));
      await poll("alice connected", async () => {
        const list = (await json("GET", "/api/connections")).body.connections;
        return list[0]?.state === "connected";
      });
      bob = await RawIrcClient.connect(irc.port, "bob");
      await bob.say("alice", "are you there?");
      const got = await poll("a push", () => service.received[0]);
      await push.notifier.settled();
      assertEquals(got.path, "/push/alice");
      assertEquals(got.headers.get("content-encoding"), "aes128gcm");
      assert(Number(got.headers.get("ttl")) > 0, "a TTL");
      await checkVapid(got.headers.get("authorization")!, push.keys.publicKey, service.origin);
      const text = await decrypt(got.body, browser);
      assert(enc.encode(text).length <= PUSH_LIMITS.payloadBytes, `payload ${text.length}`);
      const payload = JSON.parse(text);
      assertEquals(payload.title, "bob");
      assertStringIncludes(payload.body, "are you there?");
      assertEquals(payload.url, `/chat/${created.body.connection_id}/bob`);
    });

    await t.step("nothing is pushed to a browser that has Parley open", async () => {
      const before = service.received.length;
      const { tab, server } = await openTab(cookie);
      try {
        await bob!.say("alice", "seen in the browser");
        await tab.waitFor((e) => e.event === "notification"); // decided before sockets get it
        await push.notifier.settled();
        assertEquals(service.received.length, before);
      } finally {
        await tab.close();
        await server.stop();
      }
    });

    await t.step("a phone is pushed to while the tab at the desk is open", async () => {
      const phoneCookie = await t0.login("alice@example.com");
      const phone = await browserKeys();
      const sub = await t0.request("/api/push/subscriptions", {
        method: "POST",
        body: JSON.stringify({
          endpoint: service.url("/push/alice-phone"),
          keys: { p256dh: phone.p256dh, auth: phone.authB64 },
        }),
        headers: { cookie: phoneCookie, "content-type": "application/json" },
      });
      assertEquals(sub.status, 201, JSON.stringify(sub.body));
      const before = service.received.length;
      const { tab: desk, server } = await openTab(cookie);
      try {
        await bob!.say("alice", "where are you?");
        const got = await poll("the phone's push", () => service.received[before]);
        await desk.waitFor((e) => e.event === "notification");
        await push.notifier.settled();
        assertEquals(service.received.slice(before).map((r) => r.path), ["/push/alice-phone"]);
        assertStringIncludes(await decrypt(got.body, phone), "where are you?");
      } finally {
        await desk.close();
        await server.stop();
        await t0.deps.store.push.remove(service.url("/push/alice-phone"));
      }
    });

    await t.step("a payload stays within its byte budget, whatever the text", () => {
      const text = payloadOf(notification({
        conversation_id: "#" + "c".repeat(500),
        from: "n".repeat(500),
        message: "ü😀".repeat(20_000),
      }));
      assert(enc.encode(text).length <= PUSH_LIMITS.payloadBytes, `${enc.encode(text).length}`);
      assertStringIncludes(JSON.parse(text).body, "ü😀");
    });

    await t.step("a mention from the server's history is not pushed", async () => {
      const before = service.received.length;
      t0.deps.bus.publish(uid, notification({ history: true }));
      await push.notifier.settled();
      assertEquals(service.received.length, before);
      // The same notification as news is.
      t0.deps.bus.publish(uid, notification());
      await push.notifier.settled();
      assertEquals(service.received.length, before + 1);
    });

    await t.step("pushes per user are rate limited", async () => {
      const before = service.received.length;
      for (let i = 0; i < PUSH_LIMITS.perWindow + 5; i++) {
        t0.deps.bus.publish(
          uid,
          notification({ conversation_id: "#c", message: `alice: ${i}` }),
        );
      }
      await push.notifier.settled();
      // Three went out before (the IRC step's, the phone's and the news one above): the window
      // holds perWindow in all.
      assertEquals(service.received.length - before, PUSH_LIMITS.perWindow - 3);
    });

    await t.step("a subscription the push service calls gone (410) is removed", async () => {
      // Another user (alice's window is used up above) whose browser unsubscribed.
      const carol = await t0.deps.store.users.create("carol@example.com", "x", []);
      await t0.deps.store.sessions.create("carol-session", carol.id, Date.now() + 60_000);
      await t0.deps.store.push.save({
        endpoint: service.url("/push/carol"),
        userId: carol.id,
        sessionHash: "carol-session",
        p256dh: browser.p256dh,
        auth: browser.authB64,
      });
      service.gone.add("/push/carol");
      t0.deps.bus.publish(carol.id, notification());
      await push.notifier.settled();
      assertEquals(service.received.at(-1)?.path, "/push/carol");
      assertEquals(await t0.deps.store.push.countForUser(carol.id), 0);
    });

    await t.step("automatic away: away once no browser is open, back when one opens", async () => {
      const bad = await json("POST", "/api/push/settings", { auto_away: "yes" });
      assertEquals(bad.status, 400);
      assertEquals(bad.body.errors[0].path, "/body/auto_away");
      const on = await json("POST", "/api/push/settings", { auto_away: true });
      assertEquals(on.body, { auto_away: true });
      assertEquals((await json("GET", "/api/push")).body.auto_away, true);
      push.away.graceMs = 0;
      // Whether bob's WHOIS of alice says she is away (301 before the 318 that ends it).
      const away = async () => {
        const from = bob!.lines.length;
        await bob!.send("WHOIS alice");
        await bob!.waitFor((l) => l.command === "318" && bob!.lines.indexOf(l) >= from);
        return bob!.lines.slice(from).some((l) => l.command === "301");
      };
      assertEquals(await away(), false);
      const socket = t0.deps.bus.subscribe(uid, () => {});
      socket(); // the last browser closes
      await poll("alice away", away);
      assertStringIncludes(bob!.lines.findLast((l) => l.command === "301")!.raw, AWAY_MESSAGE);
      const again = t0.deps.bus.subscribe(uid, () => {});
      try {
        await poll("alice back", async () => !(await away()));
      } finally {
        again();
      }
      await poll("alice away again", away);
      // After a restart no browser is connected yet: a new watcher marks her away by itself.
      const back = t0.deps.bus.subscribe(uid, () => {});
      await poll("alice back again", async () => !(await away()));
      push.away.stop();
      back();
      const restarted = new AutoAway(t0.deps);
      restarted.graceMs = 0;
      restarted.start();
      try {
        await poll("alice away after a restart", away);
      } finally {
        restarted.stop();
      }
      await json("POST", "/api/push/settings", { auto_away: false });
    });

    await t.step("signing out a session ends its subscription", async () => {
      assertEquals(await t0.deps.store.push.countForUser(uid), 1);
      const list = await json("GET", "/api/user/sessions");
      const id = list.body.sessions.find((s: any) => s.current).id;
      const out = await json("DELETE", `/api/user/sessions/${id}`);
      assertEquals(out.status, 200);
      assertEquals(await t0.deps.store.push.countForUser(uid), 0);
    });
  } finally {
    await bob?.close();
    await push.notifier.settled();
    push.away.stop();
    await service.close();
    await t0.close();
    await irc.stop();
  }
});

/** A bare TCP listener on loopback that counts the connections it is offered. */
function tcpCounter() {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  let accepted = 0;
  const done = (async () => {
    for await (const conn of listener) {
      accepted++;
      conn.close();
    }
  })().catch(() => {});
  return {
    port: (listener.addr as Deno.NetAddr).port,
    accepted: () => accepted,
    async close() {
      listener.close();
      await done;
    },
  };
}

Deno.test("push: endpoints inside the network are refused on subscribe and never reached", async (t) => {
  // The default policy: only public addresses, as for link previews.
  const t0 = await startApp();
  const service = await pushService();
  const tcp = tcpCounter();
  const push = pushFor(t0.deps);
  push.notifier.policy.caCerts = [service.cert]; // so only the address rule can stop a delivery
  const cookie = await t0.register("alice@example.com");
  const uid = (await t0.deps.store.users.byEmail("alice@example.com"))!.id;
  const browser = await browserKeys();
  const keys = { p256dh: browser.p256dh, auth: browser.authB64 };
  const subscribe = (endpoint: string) =>
    t0.request("/api/push/subscriptions", {
      method: "POST",
      body: JSON.stringify({ endpoint, keys }),
      headers: { cookie, "content-type": "application/json" },
    });
  const mention = async (userId: number) => {
    t0.deps.bus.publish(userId, notification());
    await push.notifier.settled();
  };
  try {
    await t.step("private and loopback endpoints answer 400 at /body/endpoint", async () => {
      const port = tcp.port;
      for (
        const endpoint of [
          service.url("/push/a"),
          `https://localhost:${port}/push`,
          `https://sub.localhost:${port}/push`,
          `https://[::1]:${port}/push`,
          `https://[::ffff:127.0.0.1]:${port}/push`,
          `https://0x7f.1:${port}/push`,
          `https://2130706433:${port}/push`,
          `https://10.0.0.1/push`,
          `https://169.254.169.254/latest`,
          `https://[fd00::1]/push`,
        ]
      ) {
        const res = await subscribe(endpoint);
        assertEquals(res.status, 400, endpoint);
        assertEquals((res.body as any).errors[0].path, "/body/endpoint", endpoint);
        assertStringIncludes((res.body as any).errors[0].message, "public address", endpoint);
      }
      assertEquals(await t0.deps.store.push.countForUser(uid), 0);
    });

    await t.step("a name that resolves inside the network is refused", async () => {
      const real = push.notifier.policy.resolve;
      push.notifier.policy.resolve = (host) =>
        Promise.resolve(host === "push.example" ? ["8.8.8.8", "127.0.0.1"] : []);
      try {
        const res = await subscribe("https://push.example/x");
        assertEquals(res.status, 400);
        assertEquals((res.body as any).errors[0].path, "/body/endpoint");
      } finally {
        push.notifier.policy.resolve = real;
      }
    });

    await t.step("a name rebound to loopback after subscribing is not connected to", async () => {
      // Public when the browser subscribes, loopback when Parley delivers.
      let answer = ["8.8.8.8"];
      const real = push.notifier.policy.resolve;
      push.notifier.policy.resolve = () => Promise.resolve(answer);
      try {
        const res = await subscribe(`https://rebind.example:${tcp.port}/push`);
        assertEquals(res.status, 201, JSON.stringify(res.body));
        answer = ["127.0.0.1"];
        await mention(uid);
        assertEquals(tcp.accepted(), 0, "no connection to the loopback listener");
        // It can never be delivered: it is removed, as a subscription the service calls gone.
        assertEquals(await t0.deps.store.push.countForUser(uid), 0);
      } finally {
        push.notifier.policy.resolve = real;
      }
    });

    await t.step("a stored loopback endpoint gets no POST, HTTPS or plain TCP", async () => {
      const carol = await t0.deps.store.users.create("carol@example.com", "x", []);
      await t0.deps.store.sessions.create("carol-session", carol.id, Date.now() + 60_000);
      for (const endpoint of [service.url("/push/carol"), `https://127.0.0.1:${tcp.port}/p`]) {
        await t0.deps.store.push.save({
          endpoint,
          userId: carol.id,
          sessionHash: "carol-session",
          ...keys,
        });
      }
      await mention(carol.id);
      assertEquals(service.received.length, 0, "the push service on loopback got nothing");
      assertEquals(tcp.accepted(), 0, "the listener on loopback was not connected to");
    });
  } finally {
    await push.notifier.settled();
    push.away.stop();
    await tcp.close();
    await service.close();
    await t0.close();
  }
});

Deno.test("push: a public endpoint is accepted by the same policy", async () => {
  const t0 = await startApp();
  try {
    const cookie = await t0.register("dan@example.com");
    const browser = await browserKeys();
    const res = await t0.request("/api/push/subscriptions", {
      method: "POST",
      body: JSON.stringify({
        endpoint: "https://8.8.8.8/push/dan",
        keys: { p256dh: browser.p256dh, auth: browser.authB64 },
      }),
      headers: { cookie, "content-type": "application/json" },
    });
    assertEquals(res.status, 201, JSON.stringify(res.body));
  } finally {
    pushFor(t0.deps).away.stop();
    await t0.close();
  }
});
