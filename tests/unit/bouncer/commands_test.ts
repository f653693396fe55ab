/**
 * bouncer/commands.ts with a fake session: what each command may be sent before registration
 * and with how few parameters, CAP's negotiation, SASL over AUTHENTICATE against a real store,
 * PASS, NICK, USER and PING, BOUNCER's subcommands, and the refusals of what a client without the
 * capability, or bound to no network, may not do.
 */
import { assert, assertEquals } from "../../support/assert.ts";
import { COMMANDS, labelOf } from "../../../bouncer/commands.ts";
import { LoginThrottle } from "../../../http/throttle.ts";
import { hashPassword } from "../../../lib/password.ts";
import type { Store } from "../../../store/mod.ts";
import { connectionService, fakeSession, msg, withStore } from "./fakes.ts";

const run = (f: ReturnType<typeof fakeSession>, command: string, ...params: string[]) =>
  COMMANDS[command].run(f.session, msg(command, ...params));
const said = (f: ReturnType<typeof fakeSession>) =>
  f.sent.map((x) => [x.command, ...x.params].join(" "));

Deno.test("commands: a label is one word of at most 64 bytes", () => {
  const labeled = (l: string) => {
    const m = msg("PING", "x");
    m.tags.set("label", l);
    return labelOf(m);
  };
  assertEquals(labeled("abc-123"), "abc-123");
  assertEquals(labeled("x".repeat(64)), "x".repeat(64));
  assertEquals(labeled("x".repeat(65)), undefined);
  assertEquals(labeled("é".repeat(33)), undefined, "66 bytes");
  assertEquals(labeled("a b"), undefined);
  assertEquals(labeled("a;b"), undefined);
  assertEquals(labeled(""), undefined);
  assertEquals(labelOf(msg("PING", "x")), undefined);
});

Deno.test("commands: what comes before registration, and the fewest parameters", () => {
  const early = Object.entries(COMMANDS).filter(([, c]) => c.early).map(([n]) => n).sort();
  assertEquals(early, [
    "AUTHENTICATE",
    "AWAY",
    "BOUNCER",
    "CAP",
    "NICK",
    "PASS",
    "PING",
    "PONG",
    "QUIT",
    "USER",
  ]);
  const min = (n: string) => COMMANDS[n].min ?? 0;
  assertEquals([min("USER"), min("PRIVMSG"), min("NOTICE"), min("KICK"), min("INVITE")], [
    4,
    2,
    2,
    2,
    2,
  ]);
  assertEquals([min("JOIN"), min("TAGMSG"), min("CHATHISTORY"), min("MARKREAD")], [1, 1, 1, 0]);
});

Deno.test("commands: CAP LS, REQ, LIST and END", async () => {
  const f = fakeSession();
  await run(f, "CAP", "LS", "302");
  assert(f.s.caps.negotiating, "registration waits for CAP END");
  const ls = f.sent.filter((x) => x.command === "CAP");
  assert(ls.length >= 1);
  assertEquals(ls.at(-1)!.params.slice(0, 2), ["*", "LS"]);
  for (const x of ls.slice(0, -1)) assertEquals(x.params.slice(0, 3), ["*", "LS", "*"]);
  assert(ls.flatMap((x) => x.params.at(-1)!.split(" ")).includes("sasl=PLAIN"));
  f.sent.length = 0;
  await run(f, "CAP", "REQ", "batch server-time");
  await run(f, "CAP", "REQ", "batch nonsense");
  await run(f, "CAP", "LIST");
  await run(f, "CAP", "FROB");
  assertEquals(said(f), [
    "CAP * ACK batch server-time",
    "CAP * NAK batch nonsense",
    "CAP * LIST cap-notify batch server-time",
    "410 * FROB Invalid CAP command",
  ]);
  await run(f, "CAP", "END");
  assertEquals([f.s.caps.negotiating, f.s.registerCalls], [false, 1]);
  // Once registered, CAP answers to the nick.
  f.s.nick = "jane";
  f.s.registered = true;
  f.sent.length = 0;
  await run(f, "CAP", "LIST");
  assertEquals(f.sent[0].params[0], "jane");
});

Deno.test("commands: PASS, NICK, USER before registration; PING; none of them again after", async () => {
  const f = fakeSession();
  await run(f, "PASS", "secret");
  await run(f, "NICK", "n".repeat(80));
  await run(f, "USER", "jane@example.com/irc-x@phone", "0", "*", "Jane");
  assertEquals([f.s.password, f.s.nick.length, f.s.username], [
    "secret",
    64,
    "jane@example.com/irc-x@phone",
  ]);
  assertEquals(f.s.registerCalls, 2, "NICK and USER each try to register");
  await run(f, "PING", "token 1");
  assertEquals(said(f), ["PONG parley token 1"]);
  f.s.registered = true;
  f.s.nick = "jane";
  f.sent.length = 0;
  await run(f, "PASS", "again");
  await run(f, "USER", "x", "0", "*", "X");
  assertEquals(said(f), ["462 jane You may not reregister", "462 jane You may not reregister"]);
  assertEquals(f.s.password, "secret");
  await run(f, "QUIT");
  assertEquals(f.s.closed, "Client quit");
});

async function saslSession(store: Store) {
  const hash = await hashPassword("correct horse battery");
  const user = await store.users.create("jane@example.com", hash, []);
  const f = fakeSession({ store, loginThrottle: new LoginThrottle() });
  f.s.nick = "jane";
  f.s.caps.request("sasl");
  return { f, user };
}

const plain = (identity: string, password: string) =>
  btoa(String.fromCharCode(...new TextEncoder().encode(`\0${identity}\0${password}`)));

Deno.test("commands: AUTHENTICATE logs in with SASL PLAIN, against the store", async () => {
  await withStore(async (store) => {
    const { f, user } = await saslSession(store);
    await run(f, "AUTHENTICATE", "PLAIN");
    assertEquals(f.lines, ["AUTHENTICATE +"]);
    await run(f, "AUTHENTICATE", plain("jane@example.com", "correct horse battery"));
    assertEquals(said(f), [
      "900 jane jane!*@parley jane@example.com You are now logged in as jane@example.com",
      "903 jane SASL authentication successful",
    ]);
    assertEquals((f.s.login as { user: { id: number } }).user.id, user.id);
    assertEquals(f.s.registerCalls, 1);
    f.sent.length = 0;
    await run(f, "AUTHENTICATE", "PLAIN");
    assertEquals(said(f), ["907 jane You have already authenticated"]);
  });
});

Deno.test("commands: AUTHENTICATE's refusals; three failures end the connection", async () => {
  await withStore(async (store) => {
    const { f } = await saslSession(store);
    const none = fakeSession();
    await run(none, "AUTHENTICATE", "PLAIN");
    assertEquals(said(none), ["904 * SASL authentication failed"], "without the sasl capability");
    await run(f, "AUTHENTICATE", "SCRAM-SHA-256");
    assertEquals(said(f), [
      "908 jane PLAIN are available SASL mechanisms",
      "904 jane SASL authentication failed",
    ]);
    await run(f, "AUTHENTICATE", "PLAIN");
    await run(f, "AUTHENTICATE", "*");
    assertEquals(said(f).at(-1), "906 jane SASL authentication aborted");
    await run(f, "AUTHENTICATE", "PLAIN");
    await run(f, "AUTHENTICATE", "!!!");
    assertEquals(f.s.closed, "");
    await run(f, "AUTHENTICATE", "EXTERNAL"); // not over plain IRC
    assertEquals(f.s.closed, "Too many SASL attempts");
    // Wrong credentials end the connection at once (the web's login throttle counts them).
    const h = fakeSession({ store, loginThrottle: new LoginThrottle() });
    h.s.caps.request("sasl");
    await run(h, "AUTHENTICATE", "PLAIN");
    await run(h, "AUTHENTICATE", plain("jane@example.com", "wrong"));
    assertEquals(said(h), ["904 * Invalid email or password"]);
    assertEquals(h.s.closed, "Invalid email or password");
    assertEquals(h.s.login, undefined);
  });
});

Deno.test("commands: BOUNCER needs its capability; BIND only before registering", async () => {
  const f = fakeSession();
  await run(f, "BOUNCER", "LISTNETWORKS");
  assertEquals(f.lines, [
    "FAIL BOUNCER UNKNOWN_COMMAND LISTNETWORKS :Ask for soju.im/bouncer-networks",
  ]);
  f.s.caps.request("soju.im/bouncer-networks");
  f.lines.length = 0;
  await run(f, "BOUNCER", "BIND");
  await run(f, "BOUNCER", "bind", "irc-x");
  assertEquals(f.lines, ["FAIL BOUNCER INVALID_NETID BIND * :Name a network"]);
  assertEquals(f.s.bind, "irc-x");
  await run(f, "BOUNCER", "LISTNETWORKS");
  assertEquals(said(f), ["451 * You have not registered"]);
  f.s.registered = true;
  f.lines.length = 0;
  await run(f, "BOUNCER", "BIND", "irc-y");
  assertEquals(f.lines, ["FAIL BOUNCER REGISTRATION_IS_COMPLETED BIND :Bind before registering"]);
  assertEquals(f.s.bind, "irc-x");
});

Deno.test("commands: BOUNCER LISTNETWORKS and changes, as the user is stored now", async () => {
  await withStore(async (store) => {
    const { connections } = connectionService(store);
    const user = await store.users.create("jane@example.com", "x", []);
    const made = await connections.create(user, {
      url: "ircs://irc.example.org?nick=jane",
      name: "Example",
      wanted_state: "disconnected",
    }, "/");
    const watcher = {
      userId: user.id,
      lines: [] as string[],
      write(l: string) {
        this.lines.push(l);
      },
    };
    const f = fakeSession({ store, connections, networkWatchers: new Set([watcher]) });
    f.s.caps.request("soju.im/bouncer-networks");
    f.s.registered = true;
    f.s.login = { user, identity: { email: user.email, network: "", client: "" } };
    await run(f, "BOUNCER", "LISTNETWORKS");
    assertEquals(f.lines.length, 3);
    const id = /^BATCH \+(\S+) soju\.im\/bouncer-networks$/.exec(f.lines[0])![1];
    assert(
      f.lines[1].startsWith(`@batch=${id} BOUNCER NETWORK ${made.connection_id} name=Example;`),
      f.lines[1],
    );
    assertEquals(f.lines[2], `BATCH -${id}`);
    f.lines.length = 0;
    // What is missing is answered as soju.im/bouncer-networks says: no attributes lack the
    // mandatory `host`, and no netid is an invalid one, `*`.
    await run(f, "BOUNCER", "ADDNETWORK");
    await run(f, "BOUNCER", "CHANGENETWORK");
    await run(f, "BOUNCER", "DELNETWORK");
    await run(f, "BOUNCER", "FROB");
    assertEquals(f.lines, [
      "FAIL BOUNCER NEED_ATTRIBUTE ADDNETWORK host :A network needs a host.",
      "FAIL BOUNCER INVALID_NETID CHANGENETWORK * :Name a network",
      "FAIL BOUNCER INVALID_NETID DELNETWORK * :Name a network",
      "FAIL BOUNCER UNKNOWN_COMMAND FROB :Unknown subcommand",
    ]);
    assertEquals(watcher.lines, []);
    f.lines.length = 0;
    await run(f, "BOUNCER", "DELNETWORK", made.connection_id);
    assertEquals(f.lines, [`BOUNCER DELNETWORK ${made.connection_id}`]);
    assertEquals(watcher.lines, [`BOUNCER NETWORK ${made.connection_id} *`]);
    // A deleted account manages nothing.
    await store.users.remove(user.id);
    await run(f, "BOUNCER", "LISTNETWORKS");
    assertEquals(f.s.closed, "The account was deleted");
  });
});

Deno.test("commands: what a client without the capability or a network is refused", async () => {
  const f = fakeSession();
  f.s.nick = "jane";
  f.s.registered = true;
  f.s.control = true; // bound to no network: it manages networks
  await run(f, "SEARCH", "text=x");
  f.s.caps.request("soju.im/search draft/chathistory draft/read-marker");
  await run(f, "SEARCH", "text=x");
  await run(f, "CHATHISTORY", "LATEST", "#c", "*", "10");
  await run(f, "MARKREAD", "#c");
  await run(f, "PRIVMSG", "#c", "hello there");
  await run(f, "TAGMSG", "#c");
  await run(f, "WHOIS", "bob");
  await run(f, "BATCH", "+x", "draft/multiline", "#c");
  const bind = "Bind a network first (BOUNCER BIND, or EMAIL/NETWORK)";
  assertEquals(said(f), [
    "421 jane SEARCH Unknown command",
    `400 jane SEARCH ${bind}`,
    `400 jane CHATHISTORY ${bind}`,
    `400 jane MARKREAD ${bind}`,
    `400 jane PRIVMSG ${bind}`,
    `400 jane TAGMSG ${bind}`,
    `400 jane WHOIS ${bind}`,
    "421 jane BATCH Unknown command",
  ]);
});

Deno.test("commands: AWAY with and without draft/pre-away", async () => {
  const f = fakeSession();
  const absent: boolean[] = [];
  const s = Object.assign(f.s, {
    earlyAway: undefined as string[] | undefined,
    absent: false,
    setAbsent(v: boolean) {
      s.absent = v;
      absent.push(v);
    },
  });
  // Before registration: refused without the capability, kept for the attach with it.
  await run(f, "AWAY", "*");
  assertEquals([said(f), s.earlyAway], [["451 * You have not registered"], undefined]);
  f.s.caps.request("draft/pre-away");
  await run(f, "AWAY", "*");
  await run(f, "AWAY", "on the train", "extra");
  assertEquals(s.earlyAway, ["on the train"]);
  // Registered, bound to no network: `*` and the bare AWAY after it stay here; a message is
  // the server's (refused here: no network to send it to).
  f.sent.length = 0;
  s.nick = "jane";
  s.registered = true;
  s.control = true;
  await run(f, "AWAY", "*");
  await run(f, "AWAY");
  await run(f, "AWAY");
  await run(f, "AWAY", "lunch");
  const bind = "Bind a network first (BOUNCER BIND, or EMAIL/NETWORK)";
  assertEquals(said(f), [
    "306 jane You have been marked as being away",
    "305 jane You are no longer marked as being away",
    `400 jane AWAY ${bind}`,
    `400 jane AWAY ${bind}`,
  ]);
  assertEquals(absent, [true, false, false, false]);
  // Without the capability `*` is an away message like any other, for the server.
  const g = fakeSession();
  Object.assign(g.s, { nick: "jane", registered: true, control: true, setAbsent() {} });
  await run(g, "AWAY", "*");
  assertEquals(said(g), [`400 jane AWAY ${bind}`]);
});
