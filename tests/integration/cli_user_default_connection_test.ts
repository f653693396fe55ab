/**
 * An account made with `parley user add` gets the default connection every new user gets, as one
 * registered through the web does: the command cannot reach the running daemon, so the account's
 * first login adds it (a web login or an IRC client's), once, however many logins race, and never
 * again after the user removed it.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { ApiClient } from "../support/api.ts";
import { BouncerClient } from "../support/bouncer_client.ts";
import { parley } from "../support/cli.ts";
import { startIrcServer } from "../support/ngircd.ts";
import { freePort } from "../support/ports.ts";
import { poll } from "../support/poll.ts";
import { startServer } from "../support/server.ts";

const PASSWORD = "a long enough password";

interface Conn {
  connection_id: string;
  url: string;
  state: string;
}

const connections = async (api: ApiClient) =>
  (await api.get("/api/connections")).body.connections as Conn[];

Deno.test("cli: an added user's first login adds the default connection", async (t) => {
  const irc = await startIrcServer();
  const listen = freePort();
  const server = await startServer({
    env: {
      PARLEY_NEW_USER_CONNECTION: "1",
      PARLEY_DEFAULT_CONNECTION: `irc://127.0.0.1:${irc.port}/%23lobby`,
      PARLEY_IRC_LISTEN: `irc://127.0.0.1:${listen}`,
    },
  });
  const env = { PARLEY_HOME: server.home };
  const add = async (email: string) => {
    const r = await parley(["user", "add", email], { env, stdin: `${PASSWORD}\n` });
    assertEquals(r.code, 0, r.stderr);
  };
  try {
    await new ApiClient(server.url).register("admin@example.org");

    await t.step("racing web logins add it once, connected, with the email's nick", async () => {
      await add("cli@example.org");
      const apis = [new ApiClient(server.url), new ApiClient(server.url)];
      await Promise.all(apis.map((a) => a.login("cli@example.org", PASSWORD)));
      const [api] = apis;
      const list = await connections(api);
      assertEquals(list.length, 1, JSON.stringify(list));
      const url = new URL(list[0].url);
      assertEquals(url.host, `127.0.0.1:${irc.port}`);
      assertEquals(url.searchParams.get("nick"), "cli");
      await poll(
        "the default connection connected",
        async () => (await connections(api))[0]?.state === "connected" || undefined,
      );
      await poll(
        "#lobby joined",
        async () =>
          ((await api.get("/api/conversations")).body.conversations as {
            conversation_id: string;
          }[]).some((c) => c.conversation_id === "#lobby") || undefined,
      );
    });

    await t.step("removed, it is not added again at the next login", async () => {
      const api = new ApiClient(server.url);
      await api.login("cli@example.org", PASSWORD);
      const [conn] = await connections(api);
      const del = await api.delete(`/api/connection/${conn.connection_id}`);
      assertEquals(del.status, 200, JSON.stringify(del.body));
      const again = new ApiClient(server.url);
      await again.login("cli@example.org", PASSWORD);
      assertEquals(await connections(again), []);
    });

    await t.step(
      "an IRC client's first login adds it too, before its networks are listed",
      async () => {
        await add("native@example.org");
        const c = await BouncerClient.attach(
          listen,
          "native@example.org",
          PASSWORD,
          ["soju.im/bouncer-networks"],
        );
        try {
          await c.send("BOUNCER LISTNETWORKS");
          const net = await c.waitFor((l) => l.command === "BOUNCER" && l.params[0] === "NETWORK");
          const attrs = net.params[2].split(";");
          assert(attrs.includes("host=127.0.0.1"), net.params[2]);
          assert(attrs.includes(`port=${irc.port}`), net.params[2]);
        } finally {
          c.close();
        }
        // The web login that follows finds it made, and makes no second one.
        const api = new ApiClient(server.url);
        await api.login("native@example.org", PASSWORD);
        assertEquals((await connections(api)).length, 1);
      },
    );

    await t.step(
      "a registered user is owed nothing: the web registration added theirs",
      async () => {
        const api = new ApiClient(server.url);
        await api.login("admin@example.org");
        assertEquals((await connections(api)).length, 1);
      },
    );
  } finally {
    await server.close();
    await irc.close();
  }
});
