/**
 * soju.im/webpush through the listener: a scripted IRC client takes the capability, reads the
 * server's VAPID key in 005, registers a push endpoint (a local push service over TLS on
 * loopback, which keeps what it gets; the test holds the subscription's private key and decrypts
 * it), detaches, and a mention on ngircd reaches the endpoint as the IRC line. Real ngircd, real
 * listener, the web client's delivery.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { EMAIL, PASSWORD, setupBouncer } from "../support/bouncer.ts";
import { BouncerClient, type Received } from "../support/bouncer_client.ts";
import { RawIrcClient } from "../support/irc_client.ts";
import { poll } from "../support/poll.ts";
import { browserKeys, checkVapid, decrypt, pushService } from "../support/push_service.ts";
import { pushFor } from "../../push/mod.ts";
import { parseMessage } from "../../irc/protocol/message.ts";

const assertMatch = (text: string, re: RegExp) => assert(re.test(text), `${text} ~ ${re}`);

const CAPS = ["soju.im/webpush", "server-time", "message-tags"];

/** The tokens of every 005 a client got. */
function isupport(c: BouncerClient): string[] {
  return c.lines.filter((l) => l.command === "005").flatMap((l) => l.params.slice(1, -1));
}

/** Sends a line and waits for the first answer that `test` takes after it. */
async function ask(c: BouncerClient, line: string, test: (l: Received) => boolean) {
  const from = c.lines.length;
  await c.send(line);
  return await c.waitFor((l) => test(l) && c.lines.indexOf(l) >= from);
}

const answer = (l: Received) =>
  l.command === "WEBPUSH" || l.command === "FAIL" || l.command === "421";

Deno.test("bouncer: soju.im/webpush pushes a detached client's mentions as IRC lines", async (t) => {
  const s = await setupBouncer();
  const service = await pushService();
  const push = pushFor(s.app.deps);
  push.notifier.policy.caCerts = [service.cert];
  const phoneKeys = await browserKeys();
  const tabletKeys = await browserKeys();
  const keys = (k: Awaited<ReturnType<typeof browserKeys>>) =>
    `p256dh=${k.p256dh};auth=${k.authB64}`;
  const bob = await RawIrcClient.connect(s.ngircd.port, "bob");
  const clients: BouncerClient[] = [];
  const attach = async (name: string, caps = CAPS) => {
    const c = await BouncerClient.attach(s.port, `${EMAIL}/${s.cid}@${name}`, PASSWORD, caps);
    clients.push(c);
    await c.waitFor((l) => l.command === "366" && l.params[1] === "#push");
    return c;
  };
  const detach = async (c: BouncerClient) => {
    const before = s.bouncer.clients();
    c.close();
    await poll("the client detached", () => s.bouncer.clients() === before - 1);
  };
  /** What the push service got at `path`, decrypted with `k`, as IRC lines. */
  const received = (path: string, k: typeof phoneKeys) =>
    Promise.all(service.received.filter((r) => r.path === path).map((r) => decrypt(r.body, k)));
  try {
    await s.app.deps.irc.send(1, s.cid, "", "/join #push");
    await bob.join("#push");
    await bob.waitForMember("#push", "alice");
    const phone = await attach("phone");

    await t.step(
      "the capability is offered and VAPID is the server's key, to who took it",
      async () => {
        const vapid = isupport(phone).find((t) => t.startsWith("VAPID="));
        assertEquals(vapid, `VAPID=${push.keys.publicKey}`);
        for (const l of phone.lines.filter((l) => l.command === "005")) {
          const body = l.raw.replace(/^@\S+ /, "");
          assert(new TextEncoder().encode(body).length <= 510, `a 005 within 512 bytes: ${body}`);
        }
        assertMatch(push.keys.publicKey, /^[\w-]{87}$/); // base64url, unpadded
        const plain = await attach("plain", []);
        assertEquals(isupport(plain).filter((t) => t.startsWith("VAPID")), []);
        const refused = await ask(
          plain,
          `WEBPUSH REGISTER ${service.url("/x")} ${keys(phoneKeys)}`,
          answer,
        );
        assertEquals(refused.command, "421");
        await detach(plain);
      },
    );

    await t.step("bad registrations are answered FAIL INVALID_PARAMS", async () => {
      const cases = [
        `WEBPUSH REGISTER http://example.com/x ${keys(phoneKeys)}`,
        `WEBPUSH REGISTER ${service.url("/phone")} p256dh=short;auth=${phoneKeys.authB64}`,
        `WEBPUSH REGISTER ${service.url("/phone")}`,
        `WEBPUSH SUBSCRIBE ${service.url("/phone")}`,
      ];
      for (const line of cases) {
        const got = await ask(phone, line, answer);
        assertEquals(got.command, "FAIL", line);
        assertEquals(got.params.slice(0, 2), ["WEBPUSH", "INVALID_PARAMS"], got.raw);
      }
    });

    await t.step(
      "an endpoint on a private address is refused (the web's endpoint rule)",
      async () => {
        const got = await ask(
          phone,
          `WEBPUSH REGISTER ${service.url("/phone")} ${keys(phoneKeys)}`,
          answer,
        );
        assertEquals(got.command, "FAIL", got.raw);
        assertEquals(got.params.slice(0, 4), [
          "WEBPUSH",
          "INVALID_PARAMS",
          "REGISTER",
          service.url("/phone"),
        ]);
        assert(/public address/.test(got.params.at(-1)!), got.raw);
        assertEquals(await s.app.deps.store.push.ircForUser(1), []);
      },
    );

    // From here the push service on loopback is allowed, as an install with private addresses
    // allowed (PARLEY_EMBED_ALLOW_PRIVATE) would.
    push.notifier.policy.allow = () => true;

    await t.step("REGISTER is answered with the endpoint", async () => {
      const got = await ask(
        phone,
        `WEBPUSH REGISTER ${service.url("/phone")} ${keys(phoneKeys)}`,
        answer,
      );
      assertEquals(got.command, "WEBPUSH", got.raw);
      assertEquals(got.params, ["REGISTER", service.url("/phone")]);
      const stored = await s.app.deps.store.push.ircForUser(1);
      assertEquals(stored.map((x) => [x.endpoint, x.client]), [[service.url("/phone"), "phone"]]);
    });

    await t.step("nothing is pushed while the client is attached: it gets the line", async () => {
      // A subscription of a client that is never attached: it gets every push, in the same
      // delivery as the phone's would be.
      const witness = await browserKeys();
      await s.app.deps.store.push.saveIrcWithin({
        endpoint: service.url("/witness"),
        userId: 1,
        connection: null,
        client: "witness",
        credential: "null",
        p256dh: witness.p256dh,
        auth: witness.authB64,
      }, 10);
      await bob.say("#push", "alice: still there?");
      await phone.waitFor((l) => l.command === "PRIVMSG" && l.params[1] === "alice: still there?");
      await poll("the witness's push", () => service.received.some((r) => r.path === "/witness"));
      await push.notifier.settled();
      const seen = await received("/witness", witness);
      assertEquals(seen.map((l) => parseMessage(l)!.params), [["#push", "alice: still there?"]]);
      assertEquals(service.received.filter((r) => r.path === "/phone").length, 0);
      await s.app.deps.store.push.removeIrc(service.url("/witness"));
    });

    await t.step(
      "detached, a mention reaches the endpoint as the IRC line, encrypted",
      async () => {
        await detach(phone);
        await bob.say("#push", "nothing for you here"); // no mention: the channel's level says no
        await bob.say("#push", "alice: are you there?");
        const got = await poll("a push", () => service.received.find((r) => r.path === "/phone"));
        await push.notifier.settled();
        assertEquals(got.headers.get("content-encoding"), "aes128gcm");
        await checkVapid(got.headers.get("authorization")!, push.keys.publicKey, service.origin);
        const lines = await received("/phone", phoneKeys);
        assertEquals(lines.length, 1, lines.join("\n"));
        const line = parseMessage(lines[0])!;
        assertEquals(line.command, "PRIVMSG");
        assertEquals(line.params, ["#push", "alice: are you there?"]);
        assertMatch(line.prefix ?? "", /^bob(!|$)/);
        assertMatch(line.tags.get("time") ?? "", /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
        assertMatch(line.tags.get("msgid") ?? "", /^[0-9a-z]+\.[0-9a-z]+$/);
      },
    );

    await t.step("a private message too, its target the user's nick", async () => {
      await bob.say("alice", "psst");
      await poll("a second push", async () => (await received("/phone", phoneKeys)).length === 2);
      const line = parseMessage((await received("/phone", phoneKeys))[1])!;
      assertEquals(line.params, ["alice", "psst"]);
    });

    await t.step("UNREGISTER is echoed and stops the pushes", async () => {
      const tablet = await attach("tablet");
      const reg = await ask(
        tablet,
        `WEBPUSH REGISTER ${service.url("/tablet")} ${keys(tabletKeys)}`,
        answer,
      );
      assertEquals(reg.params, ["REGISTER", service.url("/tablet")]);
      const gone = await ask(tablet, `WEBPUSH UNREGISTER ${service.url("/phone")}`, answer);
      assertEquals(gone.command, "WEBPUSH", gone.raw);
      assertEquals(gone.params, ["UNREGISTER", service.url("/phone")]);
      // Unknown endpoints are ignored, as the spec says: echoed all the same.
      const unknown = await ask(tablet, `WEBPUSH UNREGISTER ${service.url("/nobody")}`, answer);
      assertEquals(unknown.params, ["UNREGISTER", service.url("/nobody")]);
      await detach(tablet);
      await bob.say("alice", "after unregistering");
      await poll("the tablet's push", () => service.received.some((r) => r.path === "/tablet"));
      await push.notifier.settled();
      assertEquals((await received("/tablet", tabletKeys)).map((l) => parseMessage(l)!.params), [
        ["alice", "after unregistering"],
      ]);
      assertEquals((await received("/phone", phoneKeys)).length, 2, "nothing more to the phone");
    });

    await t.step("revoking the app token a client registered with ends its pushes", async () => {
      const made = await s.api.post("/api/tokens", { name: "lost phone" });
      assertEquals(made.status, 201, JSON.stringify(made.body));
      const lost = await BouncerClient.attach(
        s.port,
        `${EMAIL}/${s.cid}@lost`,
        made.body.token,
        CAPS,
      );
      clients.push(lost);
      const lostKeys = await browserKeys();
      const reg = await ask(
        lost,
        `WEBPUSH REGISTER ${service.url("/lost")} ${keys(lostKeys)}`,
        answer,
      );
      assertEquals(reg.params, ["REGISTER", service.url("/lost")]);
      assertEquals((await s.api.delete(`/api/tokens/${made.body.id}`)).status, 200);
      await lost.waitClosed();
      await poll("the lost client detached", () => s.bouncer.clients() === 0);
      const tablet = service.received.filter((r) => r.path === "/tablet").length;
      await bob.say("alice", "where is my phone?");
      await poll(
        "the tablet's next push",
        () => service.received.filter((r) => r.path === "/tablet").length > tablet,
      );
      await push.notifier.settled();
      assertEquals(service.received.filter((r) => r.path === "/lost").length, 0);
      const left = (await s.app.deps.store.push.ircForUser(1)).map((x) => x.endpoint);
      assertEquals(left, [service.url("/tablet")]);
    });
  } finally {
    for (const c of clients) c.close();
    await bob.close();
    await service.close();
    await s.close();
  }
});
