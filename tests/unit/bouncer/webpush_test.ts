/**
 * bouncer/webpush.ts: `WEBPUSH REGISTER|UNREGISTER` parsed and answered (the line back, or FAIL
 * with what was wrong), over a real store; and which subscriptions a notification reaches (not a
 * client that is attached, not one whose login was revoked), with the IRC line it would have got.
 */
import { assert, assertEquals } from "../../support/assert.ts";
import { ircPushSource, parseKeys, webpushCommand } from "../../../bouncer/webpush.ts";
import { passwordGeneration } from "../../../bouncer/credentials.ts";
import { isPublicAddress } from "../../../embed/address.ts";
import { PUSH_LIMITS } from "../../../push/notify.ts";
import type { BouncerContext } from "../../../bouncer/session.ts";
import type { Store } from "../../../store/mod.ts";
import { fakeSession, msg, userWithConnection, withStore } from "./fakes.ts";

const P256DH = "B" + "A".repeat(86);
const AUTH = "C".repeat(22);
const KEYS = `p256dh=${P256DH};auth=${AUTH}`;
const ENDPOINT = "https://push.example.com/sub/1";

/** The resolver of the tests: push.example.com is public, inside.example.com private. */
const policy = {
  allow: isPublicAddress,
  resolve: (host: string) =>
    Promise.resolve(host === "inside.example.com" ? ["10.0.0.5"] : ["93.184.216.34"]),
};

async function session(
  store: Store,
  opts: { cap?: boolean; push?: boolean; email?: string } = {},
) {
  const { user, connection } = await userWithConnection(store, opts.email);
  const f = fakeSession({
    store,
    services: opts.push === false ? {} : { push: { notifier: { policy } } },
  });
  if (opts.cap !== false) f.s.caps.request("soju.im/webpush");
  f.s.nick = "jane";
  f.s.registered = true;
  f.s.hub = {};
  f.s.login = {
    user,
    identity: { email: user.email, network: "irc-test", client: "phone" },
    credential: { kind: "password", generation: await passwordGeneration(user.passwordHash) },
    connection,
  };
  return { ...f, user, connection };
}

Deno.test("webpush: keys are a P-256 key and 16 bytes, base64url, padding dropped", () => {
  assertEquals(parseKeys(KEYS), { p256dh: P256DH, auth: AUTH });
  assertEquals(parseKeys(`auth=${AUTH}==;p256dh=${P256DH}=`), { p256dh: P256DH, auth: AUTH });
  assert(typeof parseKeys(`p256dh=${P256DH}`) === "string", "no auth");
  assert(typeof parseKeys(`p256dh=${P256DH}x;auth=${AUTH}`) === "string", "88 characters");
  assert(typeof parseKeys(`p256dh=${P256DH};auth=${AUTH.slice(1)}`) === "string", "15 bytes");
  assert(typeof parseKeys(`p256dh=${P256DH.slice(0, 86)}+;auth=${AUTH}`) === "string", "not url");
  assert(typeof parseKeys("") === "string");
});

Deno.test("webpush: without the capability, or without push, WEBPUSH is unknown", async () => {
  await withStore(async (store) => {
    const a = await session(store, { cap: false });
    await webpushCommand(a.session, msg("WEBPUSH", "REGISTER", ENDPOINT, KEYS));
    assertEquals(a.sent, [{ command: "421", params: ["jane", "WEBPUSH", "Unknown command"] }]);
    const b = await session(store, { push: false, email: "joe@example.com" });
    await webpushCommand(b.session, msg("WEBPUSH", "REGISTER", ENDPOINT, KEYS));
    assertEquals(b.sent[0].command, "421");
    assertEquals(await store.push.ircForUser(a.user.id), []);
  });
});

Deno.test("webpush: every bad line is a FAIL naming its subcommand, endpoint and why", async () => {
  await withStore(async (store) => {
    const { session: s, sent } = await session(store);
    const cases: [string[], string, RegExp][] = [
      [["FROB", ENDPOINT], "FROB", /REGISTER or UNREGISTER/],
      [["a b"], "*", /REGISTER or UNREGISTER/],
      [["REGISTER", ENDPOINT], "REGISTER", /Usage: WEBPUSH REGISTER/],
      [["REGISTER", ENDPOINT, KEYS, "x"], "REGISTER", /Usage/],
      [["UNREGISTER"], "UNREGISTER", /Usage: WEBPUSH UNREGISTER/],
      [["REGISTER", "http://push.example.com/x", KEYS], "REGISTER", /https URL/],
      [["REGISTER", "not-a-url", KEYS], "REGISTER", /https URL/],
      // A trailing parameter may hold spaces: the FAIL echoes `*` in its place.
      [["REGISTER", "https://push.example.com/a b"], "REGISTER", /Usage/],
      [["UNREGISTER", "https://push.example.com/a b"], "UNREGISTER", /https URL/],
      [["UNREGISTER", ":x"], "UNREGISTER", /https URL/],
      [["REGISTER", `https://push.example.com/${"x".repeat(2048)}`, KEYS], "REGISTER", /https/],
      [["REGISTER", ENDPOINT, "p256dh=x;auth=y"], "REGISTER", /p256dh/],
      [["REGISTER", "https://inside.example.com/x", KEYS], "REGISTER", /public address/],
      [["REGISTER", "https://127.0.0.1/x", KEYS], "REGISTER", /public address/],
    ];
    for (const [params, sub, why] of cases) {
      sent.length = 0;
      await webpushCommand(s, msg("WEBPUSH", ...params));
      assertEquals(sent.length, 1, params.join(" "));
      const [word, code, echoed, endpoint, text] = sent[0].params;
      assertEquals([sent[0].command, word, code, echoed], [
        "FAIL",
        "WEBPUSH",
        "INVALID_PARAMS",
        sub,
      ]);
      assertEquals(endpoint, /\s|^:/.test(params[1] ?? ":") ? "*" : params[1]);
      assert(why.test(text), `${params.join(" ")}: ${text}`);
    }
    assertEquals(await store.push.ircForUser(1), [], "nothing was stored");
  });
});

Deno.test("webpush: REGISTER stores, replaces, answers with its label; UNREGISTER removes", async () => {
  await withStore(async (store) => {
    const { session: s, sent, user, connection } = await session(store);
    const m = msg("WEBPUSH", "register", ENDPOINT, KEYS);
    m.tags.set("label", "L1");
    await webpushCommand(s, m);
    assertEquals(sent, [{ command: "WEBPUSH", params: ["REGISTER", ENDPOINT], label: "L1" }]);
    // A label of more than 64 bytes is none (the session answers without one).
    sent.length = 0;
    m.tags.set("label", "é".repeat(33));
    await webpushCommand(s, m);
    assertEquals(sent, [{ command: "WEBPUSH", params: ["REGISTER", ENDPOINT] }]);
    let subs = await store.push.ircForUser(user.id);
    assertEquals(subs.length, 1);
    assertEquals([subs[0].client, subs[0].connection, subs[0].p256dh], [
      "phone",
      connection.id,
      P256DH,
    ]);
    assertEquals(JSON.parse(subs[0].credential).kind, "password");
    // The same endpoint again replaces it.
    await webpushCommand(
      s,
      msg("WEBPUSH", "REGISTER", ENDPOINT, `p256dh=${"D".repeat(87)};auth=${AUTH}`),
    );
    subs = await store.push.ircForUser(user.id);
    assertEquals(subs.map((x) => x.p256dh), ["D".repeat(87)]);
    sent.length = 0;
    await webpushCommand(s, msg("WEBPUSH", "UNREGISTER", ENDPOINT));
    await webpushCommand(s, msg("WEBPUSH", "UNREGISTER", "https://unknown.example.com/"));
    assertEquals(sent.map((x) => x.params.join(" ")), [
      `UNREGISTER ${ENDPOINT}`,
      "UNREGISTER https://unknown.example.com/",
    ]);
    assertEquals(await store.push.ircForUser(user.id), []);
  });
});

Deno.test("webpush: past the cap of subscriptions, INTERNAL_ERROR says to unregister one", async () => {
  await withStore(async (store) => {
    const { session: s, sent } = await session(store);
    for (let i = 0; i < PUSH_LIMITS.subscriptions; i++) {
      await webpushCommand(s, msg("WEBPUSH", "REGISTER", `${ENDPOINT}/${i}`, KEYS));
    }
    assert(sent.every((x) => x.command === "WEBPUSH"), JSON.stringify(sent.at(-1)));
    sent.length = 0;
    await webpushCommand(s, msg("WEBPUSH", "REGISTER", `${ENDPOINT}/more`, KEYS));
    assertEquals(sent[0].params.slice(0, 4), [
      "WEBPUSH",
      "INTERNAL_ERROR",
      "REGISTER",
      `${ENDPOINT}/more`,
    ]);
    assert(sent[0].params[4].includes("unregister one"));
  });
});

Deno.test("webpush: a notification reaches subscriptions whose client is away, as its IRC line", async () => {
  await withStore(async (store) => {
    const { user, connection } = await userWithConnection(store);
    const generation = await passwordGeneration(user.passwordHash);
    const save = (endpoint: string, client: string, credential: unknown) =>
      store.push.saveIrcWithin({
        endpoint,
        userId: user.id,
        connection: connection.id,
        client,
        credential: JSON.stringify(credential),
        p256dh: P256DH,
        auth: AUTH,
      }, 10);
    await save("https://push.example.com/phone", "phone", { kind: "password", generation });
    await save("https://push.example.com/tablet", "tablet", { kind: "password", generation });
    await save("https://push.example.com/old", "old", { kind: "password", generation: "before" });
    const conv = await store.conversations.ensure(connection.id, "bob", "bob");
    // The tablet is attached under its client name: it sees the line live.
    const tablet = { registered: true, login: { identity: { client: "tablet" } } };
    const cx = {
      store,
      logins: new Map([[user.id, new Set([tablet])]]),
      relay: { existing: () => undefined },
    } as unknown as BouncerContext;
    const targets = await ircPushSource(cx)(user.id, {
      event: "notification",
      connection_id: "irc-test",
      conversation_id: "bob",
      from: "bob",
      message: "lunch?",
      ts: "2026-01-02T03:04:05.678901Z",
      type: "private",
    });
    assertEquals(targets.map((t) => t.endpoint), ["https://push.example.com/phone"]);
    const line = targets[0].payload;
    assert(line.startsWith("@time=2026-01-02T03:04:05.678Z;msgid="), line);
    assert(line.endsWith(" :bob PRIVMSG jane lunch?"), `to the user's nick: ${line}`);
    assert(conv.id > 0);
    // A subscription whose password changed since is removed, not pushed.
    const left = (await store.push.ircForUser(user.id)).map((x) => x.client).sort();
    assertEquals(left, ["phone", "tablet"]);
  });
});
