/**
 * The ident server end to end: the daemon with PARLEY_IDENTD_LISTEN on 127.0.0.1:113, and a real
 * ngircd that asks each client's port 113 who it is. A Parley connection shows the username it
 * registered with, verified (`alice`, no `~`); a client Parley does not run is answered NO-USER
 * and keeps its `~` (port 113 is bound only as root). In process: a connection's ports are held
 * while it is open, and forgotten when it closes or reconnects.
 */
import { assertEquals } from "../support/assert.ts";
import { ApiClient } from "../support/api.ts";
import { RawIrcClient } from "../support/irc_client.ts";
import { startIrcServer } from "../support/ngircd.ts";
import { poll } from "../support/poll.ts";
import { startServer } from "../support/server.ts";
import { startApp } from "../support/app.ts";

const isRoot = Deno.uid() === 0;
if (!isRoot) console.warn("skipped (not root): port 113 can be bound only as root");

Deno.test({
  name: "identd: an IRC server is told which Parley user a connection is",
  ignore: !isRoot,
  async fn() {
    const irc = await startIrcServer({ ident: true });
    const server = await startServer({ env: { PARLEY_IDENTD_LISTEN: "127.0.0.1:113" } });
    let bob: RawIrcClient | undefined;
    try {
      const api = new ApiClient(server.url);
      await api.register("alice@example.com", "correct horse battery");
      const made = await api.post("/api/connections", {
        url: `irc://127.0.0.1:${irc.port}?nick=alice&username=alice`,
      });
      assertEquals(made.status, 200, JSON.stringify(made.body));
      bob = await RawIrcClient.connect(irc.port, "bob");
      /** The username ngircd gives `nick` in WHOIS (311), or undefined while not there. */
      const username = async (nick: string) => {
        const from = bob!.lines.length;
        await bob!.send(`WHOIS ${nick}`);
        await bob!.waitFor((l) => l.command === "318" && bob!.lines.indexOf(l) >= from);
        return bob!.lines.slice(from).find((l) => l.command === "311")?.params[2];
      };
      await poll("alice on IRC", async () => (await username("alice")) !== undefined);
      assertEquals(
        await username("alice"),
        "alice",
        `verified by ident: no ~\n${
          server.output().split("\n").filter((l) => /ident|irc /.test(l)).join("\n")
        }\n${irc.output()}`,
      );
      // bob is not Parley's: asked, the ident server says NO-USER.
      assertEquals(await username("bob"), "~bob");
      // The same user through a connection that gives no username: its nick is the ident.
      const second = await api.post("/api/connections", {
        url: `irc://127.0.0.1:${irc.port}?nick=alice2`,
      });
      assertEquals(second.status, 200, JSON.stringify(second.body));
      await poll("alice2 on IRC", async () => (await username("alice2")) !== undefined);
      assertEquals(await username("alice2"), "alice2");
    } finally {
      await bob?.close();
      await server.close();
      await irc.close();
    }
  },
});

Deno.test("identd: a connection is held while open, and forgotten when it closes", async () => {
  const irc = await startIrcServer();
  const app = await startApp({ PARLEY_IRC_ALLOW_PRIVATE: "1", PARLEY_TEST_FAST_IRC: "1" });
  try {
    const api = app.client();
    await api.register("alice@example.com");
    const made = await api.post("/api/connections", {
      url: `irc://127.0.0.1:${irc.port}?nick=alice&username=alice`,
    });
    assertEquals(made.status, 200, JSON.stringify(made.body));
    const ident = app.deps.ident!;
    // Each socket's ports, as the transport tells them.
    const held: number[] = [];
    const hold = ident.hold.bind(ident);
    ident.hold = (address, local, remote, username) => {
      held.push(local);
      return hold(address, local, remote, username);
    };
    await poll("held once connected", () => ident.size === 1);
    // A reconnect holds the new socket's ports and forgets the old ones.
    const cid = made.body.connection_id;
    await app.deps.irc.send(1, cid, "", "/reconnect");
    await poll("the new socket held", () => held.length === 1);
    await poll("the old one forgotten", () => ident.size === 1);
    const removed = await api.delete(`/api/connection/${cid}`);
    assertEquals(removed.status, 200);
    await poll("forgotten once closed", () => ident.size === 0);
  } finally {
    await app.close();
    await irc.close();
  }
});
