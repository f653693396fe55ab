/**
 * Where an irc:// link leads a logged-in user (routes/irc_link.ts), as Convos decides: the
 * conversation when the user has it listed, its settings when they have the connection, else the
 * add-connection form; anything that is no irc:// link leads nowhere.
 */
import { assertEquals } from "../../support/assert.ts";
import { openStore } from "../../../store/mod.ts";
import { ircLinkPath } from "../../../routes/irc_link.ts";

Deno.test("irc links: to the conversation, its settings, or a new connection", async () => {
  const home = await Deno.makeTempDir({ prefix: "parley-irc-link-test-" });
  const store = await openStore(home);
  try {
    const user = await store.users.create("al@example.org", "", []);
    const conn = await store.connections.create({
      userId: user.id,
      connectionId: "libera",
      name: "Libera",
      url: "ircs://irc.Libera.chat:6697?nick=al",
      onConnectCommands: [],
      wantedState: "connected",
    });
    const local = await store.connections.create({
      userId: user.id,
      connectionId: "home box",
      name: "Home",
      url: "irc://127.0.0.1:6667",
      onConnectCommands: [],
      wantedState: "connected",
    });
    const room = await store.conversations.ensure(conn.id, "#room", "#Room");
    await store.conversations.setJoined(room.id, true);
    await store.conversations.ensure(conn.id, "#left", "#left"); // not joined: not listed
    await store.conversations.ensure(local.id, "bob", "bob");
    const to = (uri: string) => ircLinkPath(store, user.id, uri);

    assertEquals(await to("irc://irc.libera.chat/%23Room"), "chat/libera/%23room");
    assertEquals(await to("ircs://IRC.LIBERA.CHAT:6697/%23room%20key"), "chat/libera/%23room");
    assertEquals(
      await to("irc://irc.libera.chat/%23left"),
      "settings/conversation?connection_id=libera&conversation_id=%23left",
      "a channel the user left: its settings, to join it again",
    );
    assertEquals(
      await to("irc://irc.libera.chat/"),
      "settings/conversation?connection_id=libera&conversation_id=",
    );
    // Every name of this machine is the same host.
    assertEquals(await to("irc://localhost/bob"), "chat/home%20box/bob");
    assertEquals(await to("irc://[::1]/bob"), "chat/home%20box/bob");
    assertEquals(
      await to("irc://irc.example.org/%23x"),
      `settings/connection/add?uri=${encodeURIComponent("irc://irc.example.org/%23x")}`,
    );
    for (
      const bad of ["https://irc.libera.chat/", "irc:///nohost", "irc://h/%E0%A4%A", "no link"]
    ) {
      assertEquals(await to(bad), undefined, bad);
    }
    assertEquals(await to(`irc://irc.libera.chat/${"x".repeat(2000)}`), undefined, "too long");
    const other = await store.users.create("bo@example.org", "", []);
    assertEquals(
      await ircLinkPath(store, other.id, "irc://irc.libera.chat/%23room"),
      `settings/connection/add?uri=${encodeURIComponent("irc://irc.libera.chat/%23room")}`,
      "another user's connection is not this user's",
    );
  } finally {
    await store.close();
    await Deno.remove(home, { recursive: true });
  }
});
