// deno-lint-ignore-file no-explicit-any -- answers are read field by field
/**
 * IRC parity with what users of Convos expect, against a real ngircd: a connection's info follows
 * its server, member lists answer at once and are rebuilt after a rejoin, URLs as Convos reads them.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { startApp } from "../support/app.ts";
import { startIrcServer } from "../support/ngircd.ts";
import { freePort } from "../support/ports.ts";
import { poll } from "../support/poll.ts";
import { RawIrcClient } from "../support/irc_client.ts";
import type { IrcManager } from "../../irc/manager.ts";
import { sharedNetworks } from "../../irc/chat/presence.ts";
import { adminAndUser } from "../support/api.ts";

Deno.test("connection info: a new server that fails does not keep the old one's nick and server", async () => {
  const irc = await startIrcServer();
  const a = await startApp({ PARLEY_TEST_FAST_IRC: "1" });
  try {
    const admin = a.client();
    await admin.register("admin@example.com");
    const made = await admin.post("/api/connections", { url: `${irc.url}?nick=oldnick` });
    assertEquals(made.status, 200, JSON.stringify(made.body));
    const id = made.body.connection_id;
    const info = async () =>
      (await admin.get("/api/connections")).body.connections.find((c: any) =>
        c.connection_id === id
      ).info;
    const up = await poll("connected", async () => (await info()).server ? await info() : 0);
    assertEquals([up.nick, up.server], ["oldnick", "irc.parley.test"]);

    // Nothing listens on the new port: the connect fails.
    const res = await admin.post(`/api/connection/${id}`, {
      url: `irc://127.0.0.1:${freePort()}?nick=newnick`,
    });
    assertEquals(res.status, 424, JSON.stringify(res.body));
    // The fast test timings try again within ~40 ms, and a new try clears the reason until it
    // fails too: read the info while it shows a failure.
    const now = await poll("the failure's reason", async () => {
      const i = await info();
      return i.reason ? i : 0;
    });
    assertEquals(now.server, undefined, JSON.stringify(now));
    assertEquals(now.network, undefined, JSON.stringify(now));
    assertEquals(now.nick, "newnick", "the new URL's nick, not the old server's");
  } finally {
    await a.close();
    await irc.close();
  }
});

Deno.test("member lists: /names and /mode answer at once while the send queue is full", async () => {
  const irc = await startIrcServer();
  // Production timings: a burst of 5 lines, then one every 2 s.
  const a = await startApp();
  let bob: RawIrcClient | undefined;
  try {
    const admin = a.client();
    await admin.register("admin@example.com");
    const made = await admin.post("/api/connections", {
      url: `${irc.url}?nick=jane`,
      conversation_id: "#q",
    });
    assertEquals(made.status, 200, JSON.stringify(made.body));
    const id = made.body.connection_id;
    const manager = a.deps.irc as IrcManager;
    const [record] = await a.deps.store.connections.list(1);
    const conn = await poll("joined", () => {
      const c = manager.live(record.id);
      return c?.state === "connected" ? c : undefined;
    });
    const send = (message: string) => manager.send(1, id, "#q", message);
    await poll("jane in #q", async () => (await send("/names")).participants?.length);

    bob = await RawIrcClient.connect(irc.port, "bob");
    await bob.join("#q");
    await send("/mode +v bob");
    const names = async () => (await send("/names")).participants as any[];
    await poll(
      "bob voiced",
      async () => (await names()).some((p) => p.nick === "bob" && p.mode === "v"),
    );

    // The user's own lines fill the queue: past the burst they go out one every 2 s.
    const said = Array.from({ length: 12 }, (_, i) => send(`line ${i}`).catch(() => {}));
    await poll("lines waiting in the send queue", () => conn.queued >= 5);

    const list = await names();
    assert(conn.queued > 0, "/names answered while the user's lines still wait");
    assertEquals(
      list.map((p) => `${p.mode}${p.nick}`).sort(),
      ["ojane", "vbob"],
      "the members with their prefix modes",
    );
    const mode = await send("/mode");
    assert(conn.queued > 0, "/mode answered ahead of the queue");
    assert(String(mode.modes).startsWith("+"), JSON.stringify(mode));

    // Dropped: the waiting lines fail instead of keeping the test waiting.
    await admin.delete(`/api/connection/${id}`);
    await Promise.all(said);
  } finally {
    await bob?.close();
    await a.close();
    await irc.close();
  }
});

Deno.test("member lists: two users in one channel of one server share its list, each keeps its own history", async () => {
  const networks = sharedNetworks();
  const irc = await startIrcServer();
  const a = await startApp({ PARLEY_TEST_FAST_IRC: "1" });
  let bob: RawIrcClient | undefined;
  try {
    const { admin, user } = await adminAndUser(a);
    await admin.post("/api/settings", { irc_allow_private: true });
    const manager = a.deps.irc as IrcManager;
    const connect = async (api: typeof admin, nick: string) => {
      const made = await api.post("/api/connections", {
        url: `${irc.url}?nick=${nick}`,
        conversation_id: "#s",
      });
      assertEquals(made.status, 200, JSON.stringify(made.body));
      return made.body.connection_id as string;
    };
    const [jane, joe] = [await connect(admin, "jane"), await connect(user, "joe")];
    const uid = async (api: typeof admin) => (await api.get("/api/user")).body.uid as number;
    const [janeUid, joeUid] = [await uid(admin), await uid(user)];
    const names = async (who: number, id: string) =>
      ((await manager.send(who, id, "#s", "/names")).participants as any[] ?? [])
        .map((p) => p.nick).sort();
    bob = await RawIrcClient.connect(irc.port, "bob");
    await bob.join("#s");
    // Each connection's list as its own lines told it, whenever they arrive.
    const all = "bob jane joe";
    await poll("jane sees all", async () => (await names(janeUid, jane)).join(" ") === all);
    await poll("joe sees all", async () => (await names(joeUid, joe)).join(" ") === all);
    assertEquals(sharedNetworks(), networks + 1, "one list for both connections");

    // Bob's quit reaches both connections; whichever read it first, both keep it.
    await bob.close();
    bob = undefined;
    const quits = async (api: typeof admin, id: string) =>
      ((await api.get(`/api/connection/${id}/conversation/%23s/messages`)).body.messages as any[])
        .filter((m) => m.type === "quit" || /quit/.test(m.message)).length;
    await poll("jane keeps bob's quit", async () => (await quits(admin, jane)) === 1);
    await poll("joe keeps bob's quit", async () => (await quits(user, joe)) === 1);
    assertEquals(await names(joeUid, joe), ["jane", "joe"]);

    // Joe's connection goes: jane's list is whole without it, and the last one lets go.
    await user.delete(`/api/connection/${joe}`);
    await poll("jane sees joe leave", async () => !(await names(janeUid, jane)).includes("joe"));
    assertEquals(await names(janeUid, jane), ["jane"]);
    await admin.delete(`/api/connection/${jane}`);
    await poll("no list left", () => sharedNetworks() === networks);
  } finally {
    await bob?.close();
    await a.close();
    await irc.close();
  }
});
