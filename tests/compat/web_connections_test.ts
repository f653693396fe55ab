/** Convos 8.07 t/web-connections.t ported: create, list, update and remove connections. */
import { compatServer, jsonIs, statusIs } from "../support/compat.ts";

Deno.test("web-connections.t", async (t) => {
  // web-connections.t:14: a user made in the core (admin here only so that Parley lets it reach
  // a loopback address; Convos has no such rule).
  const server = await compatServer({
    seed: { users: [{ email: "superman@example.com", password: "s3cret", roles: ["admin"] }] },
  });
  const api = server.client();
  // web-connections.t:13: Convos uses its own web server's port as an IRC server that never
  // answers as one.
  const port = new URL(server.url).port;
  try {
    await t.step("initial", async () => {
      statusIs("web-connections.t:18", await api.get("/api/connections"), 401);
      statusIs(
        "web-connections.t:19",
        await api.post("/api/connections", { url: `irc://localhost:${port}` }),
        401,
      );
      const login = await api.post("/api/user/login", {
        email: "superman@example.com",
        password: "s3cret",
      });
      statusIs("web-connections.t:21", login, 200);
      const res = await api.get("/api/connections");
      statusIs("web-connections.t:22", res, 200);
      jsonIs("web-connections.t:22", res, "/connections", []);
    });

    await t.step("create connections", async () => {
      let res = await api.post("/api/connections", {
        url: `irc://localhost:${port}`,
        wanted_state: "disconnected",
      });
      statusIs("web-connections.t:27", res, 200);
      res = await api.post("/api/connections", {
        url: "irc://irc.example.com:6667",
        wanted_state: "disconnected",
      });
      statusIs("web-connections.t:29", res, 200);
      res = await api.post("/api/connections", { url: "irc://irc.example.com:6667" });
      statusIs("web-connections.t:30", res, 400);
      jsonIs("web-connections.t:31", res, "/errors/0/message", "Connection already exists.");
      res = await api.post("/api/connections", { url: "foo://example.com" });
      statusIs("web-connections.t:32", res, 400);
      // LEFT OUT web-connections.t:33 (perl internals): the message names a Perl class.
    });

    await t.step("get connections", async () => {
      const res = await api.get("/api/connections");
      statusIs("web-connections.t:37", res, 200);
      jsonIs("web-connections.t:37", res, "/connections/0", {
        connection_id: "irc-example",
        name: "example",
        info: { authenticated: false, capabilities: {} },
        on_connect_commands: [],
        service_accounts: ["chanserv", "nickserv"],
        state: "disconnected",
        url: "irc://irc.example.com:6667",
        wanted_state: "disconnected",
      });
      jsonIs("web-connections.t:49", res, "/connections/1/connection_id", "irc-localhost");
      jsonIs("web-connections.t:50", res, "/connections/1/name", "localhost");
      jsonIs("web-connections.t:51", res, "/connections/1/wanted_state", "disconnected");
      jsonIs("web-connections.t:52", res, "/connections/1/url", `irc://localhost:${port}`);
    });

    await t.step("update connections", async () => {
      const missing = await api.post("/api/connection/irc-doesnotexist", {
        url: "foo://example.com:9999",
      });
      statusIs("web-connections.t:57", missing, 404);
      statusIs("web-connections.t:58", await api.post("/api/connection/irc-example", {}), 200);
    });

    await t.step("update on_connect_commands", async () => {
      let res = await api.post("/api/connection/irc-localhost", {
        on_connect_commands: [" /msg NickServ identify s3cret   ", "/msg too_cool 123"],
      });
      statusIs("web-connections.t:66", res, 200);
      jsonIs("web-connections.t:66", res, "/name", "localhost");
      jsonIs("web-connections.t:67", res, "/on_connect_commands", [
        "/msg NickServ identify s3cret",
        "/msg too_cool 123",
      ]);
      // LEFT OUT web-connections.t:68 (perl internals): reconnect_delay of the Perl object.
      res = await api.get("/api/connections");
      statusIs("web-connections.t:70", res, 200);
      jsonIs("web-connections.t:70", res, "/connections/1/on_connect_commands", [
        "/msg NickServ identify s3cret",
        "/msg too_cool 123",
      ]);
    });

    await t.step("set wanted_state=connected", async () => {
      const res = await api.post("/api/connection/irc-localhost", {
        url: "irc://example.com:9999",
        wanted_state: "connected",
      });
      statusIs("web-connections.t:76", res, 424);
      jsonIs("web-connections.t:77", res, "/errors/0/path", "/wanted_state");
    });

    await t.step("update connection url", async () => {
      const res = await api.post("/api/connection/irc-localhost", {
        url: "irc://foo:bar@example.com:9999?tls=0&nick=superman",
      });
      statusIs("web-connections.t:82", res, 424);
      jsonIs("web-connections.t:83", res, "/errors/0/path", "/wanted_state");
    });

    await t.step("update connection username and password", async () => {
      // LEFT OUT web-connections.t:87 (perl internals): the Perl object's state is set to
      // connected by hand.
      let res = await api.post("/api/connection/irc-localhost", {
        url: "irc://foo:s3cret@example.com:9999?tls=0&nick=superman",
        wanted_state: "connected",
      });
      statusIs("web-connections.t:91", res, 424);
      jsonIs("web-connections.t:91", res, "/errors/0/path", "/wanted_state");
      // LEFT OUT web-connections.t:93, 98 (perl internals): TO_JSON(1) of the Perl object, with
      // the password that the API never returns.
      res = await api.post("/api/connection/irc-localhost", {
        url: "irc://foo:s3cret@example.com:9999?tls=0&nick=superman",
      });
      statusIs("web-connections.t:97", res, 200);
    });

    await t.step("remove connections", async () => {
      // LEFT OUT web-connections.t:103 (design, docs/api.md "Differences from Convos"): deleting
      // an unknown connection is a 404, not a 200; that is what Parley answers.
      statusIs("design", await api.delete("/api/connection/irc-doesnotexist"), 404);
      statusIs("web-connections.t:104", await api.delete("/api/connection/irc-localhost"), 200);
    });

    await t.step("conversation_id creates a connection and a conversation", async () => {
      let res = await api.get("/api/conversations");
      statusIs("web-connections.t:108", res, 200);
      jsonIs("web-connections.t:108", res, "/conversations", []);
      res = await api.post("/api/connections", {
        conversation_id: "#convos",
        url: "irc://localhost",
        wanted_state: "disconnected",
      });
      statusIs("web-connections.t:112", res, 200);
      res = await api.get("/api/conversations");
      statusIs("web-connections.t:113", res, 200);
      jsonIs("web-connections.t:114", res, "/conversations/0/conversation_id", "#convos");
    });
  } finally {
    await server.close();
  }
});
