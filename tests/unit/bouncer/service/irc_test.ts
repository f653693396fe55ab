/**
 * bouncer/service/irc.ts: BouncerServ on the listener, with a fake session: what is addressed to
 * it, its answers as NOTICEs (echo and label as the client asked), a login that no longer holds,
 * and an admin's server notice to every logged-in client this node serves.
 */
import { assert, assertEquals } from "../../../support/assert.ts";
import { bouncerServ, relayServerNotices, toService } from "../../../../bouncer/service/irc.ts";
import { passwordGeneration } from "../../../../bouncer/credentials.ts";
import type { BouncerContext } from "../../../../bouncer/session.ts";
import { parseMessage } from "../../../../irc/protocol/message.ts";
import { UpstreamState } from "../../../../irc/upstream_state.ts";
import type { Store } from "../../../../store/mod.ts";
import { fakeSession, msg, withStore } from "../fakes.ts";
import { service } from "./service.ts";

async function session(store: Store, generation?: string) {
  const { connections, bus } = service(store);
  const user = await store.users.create("jane@example.com", "hash", []);
  const f = fakeSession({ store, connections, relay: { bus } });
  f.s.nick = "jane";
  f.s.username = "jane@example.com";
  f.s.login = {
    user,
    identity: { email: user.email, network: "", client: "" },
    credential: { kind: "password", generation: generation ?? await passwordGeneration("hash") },
  };
  return { ...f, user, bus };
}

Deno.test("bouncerserv on IRC: what is addressed to it", () => {
  assert(toService(msg("PRIVMSG", "BouncerServ", "help")));
  assert(toService(msg("PRIVMSG", "bouncerserv", "help")));
  assert(toService(msg("NOTICE", "BOUNCERSERV", "help")));
  assert(!toService(msg("PRIVMSG", "#bouncerserv", "help")));
  assert(!toService(msg("PRIVMSG", "BouncerServ2", "help")));
  assert(!toService(msg("TAGMSG", "BouncerServ")));
  assert(!toService(msg("PRIVMSG")));
});

Deno.test("bouncerserv on IRC: answers are NOTICEs from BouncerServ; a NOTICE gets none", async () => {
  await withStore(async (store) => {
    const { session: s, lines } = await session(store);
    assertEquals(await bouncerServ(s, msg("PRIVMSG", "#chan", "help")), false);
    assertEquals(await bouncerServ(s, msg("NOTICE", "BouncerServ", "help")), true);
    assertEquals(lines, [], "notices get no answer");
    assertEquals(await bouncerServ(s, msg("PRIVMSG", "BouncerServ", "network status")), true);
    assertEquals(lines, [
      ':BouncerServ!BouncerServ@parley NOTICE jane :You have no networks. Type "help network create".',
    ]);
  });
});

Deno.test("bouncerserv on IRC: an echo and a label as the client asked", async () => {
  await withStore(async (store) => {
    const { s, session: sess, lines } = await session(store);
    s.caps.request("labeled-response");
    const labeled = msg("PRIVMSG", "BouncerServ", "network status");
    labeled.tags.set("label", "q1");
    await bouncerServ(sess, labeled);
    assertEquals(lines[0], "@label=q1 :parley ACK");
    assert(lines[1].includes("NOTICE jane"));
    lines.length = 0;
    s.caps.request("echo-message");
    await bouncerServ(sess, labeled);
    const echo = parseMessage(lines[0])!;
    assertEquals([echo.command, echo.params, echo.tags.get("label")], [
      "PRIVMSG",
      ["BouncerServ", "network status"],
      "q1",
    ]);
    // Bound to no network (or none that showed her source yet): her bare nick, never the login.
    assertEquals(echo.prefix, "jane");
    lines.length = 0;
    // A label too long to be one (64 bytes at most) is not answered as one.
    for (const long of ["x".repeat(65), "é".repeat(33)]) {
      lines.length = 0;
      labeled.tags.set("label", long);
      await bouncerServ(sess, labeled);
      assert(!lines[0].includes("label="), lines[0]);
    }
  });
});

Deno.test("bouncerserv on IRC: nothing runs for a client not logged in or no longer valid", async () => {
  await withStore(async (store) => {
    const stale = await session(store, "another password's");
    assertEquals(await bouncerServ(stale.session, msg("PRIVMSG", "BouncerServ", "help")), true);
    assertEquals(stale.s.closed, "The login is no longer valid");
    assertEquals(stale.lines, []);
    stale.s.login = undefined;
    stale.s.closed = "";
    assertEquals(await bouncerServ(stale.session, msg("PRIVMSG", "BouncerServ", "help")), true);
    assertEquals([stale.s.closed, stale.lines], ["", []]);
  });
});

Deno.test("bouncerserv on IRC: a server notice reaches each client this node serves", async () => {
  await withStore(async (store) => {
    const { bus, user } = await session(store);
    const attached = fakeSession();
    const control = fakeSession();
    const elsewhere = fakeSession(); // handed over to another node: hears it from there
    for (const f of [attached, control, elsewhere]) f.s.nick = "jane";
    attached.s.hub = {};
    control.s.control = true;
    const logins = new Map([[user.id, new Set([attached.s, control.s, elsewhere.s])]]);
    const stop = relayServerNotices({ relay: { bus }, logins } as unknown as BouncerContext);
    try {
      bus.publish(user.id, {
        event: "server_notice",
        from: "root@example.com",
        message: "Maintenance at noon",
      });
      bus.publish(user.id + 1, {
        event: "server_notice",
        from: "root@example.com",
        message: "not hers",
      });
      const line = ":parley NOTICE jane :Maintenance at noon";
      assertEquals(attached.lines, [line]);
      assertEquals(control.lines, [line]);
      assertEquals(elsewhere.lines, []);
    } finally {
      stop();
    }
  });
});

Deno.test("bouncerserv on IRC: the echo comes from the user's source on the network", async () => {
  await withStore(async (store) => {
    const { s, session: sess, lines } = await session(store);
    // The login the client sent: email, network and client name, which is no IRC source.
    s.username = "jane@example.com/irc-x@phone";
    const state = new UpstreamState();
    s.hub = { state, nick: "jane" };
    s.caps.request("echo-message");
    const echoed = async () => {
      lines.length = 0;
      await bouncerServ(sess, msg("PRIVMSG", "BouncerServ", "help"));
      return parseMessage(lines[0])!.prefix;
    };
    assertEquals(await echoed(), "jane", "no source seen yet: the bare nick, as the relay gives");
    state.source = "jane!~jane@user/jane";
    assertEquals(await echoed(), "jane!~jane@user/jane", "as the network shows her");
    // A source of another nick (before the server showed the new one) is not hers now.
    state.source = "jane_!~jane@user/jane";
    assertEquals(await echoed(), "jane");
  });
});
