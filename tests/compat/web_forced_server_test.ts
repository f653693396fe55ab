/** Convos 8.07 t/web-forced-server.t ported: users may only use the forced connection. */
import { compatServer, jsonIs, statusIs } from "../support/compat.ts";

Deno.test("web-forced-server.t", async () => {
  // web-forced-server.t:7-8
  const server = await compatServer({
    seed: {
      settings: {
        default_connection: "irc://chat.example.com:1234",
        forced_connection: true,
        open_to_public: true,
      },
    },
  });
  const api = server.client();
  try {
    let res = await api.post("/api/user/register", {
      email: "superman@example.com",
      password: "longenough",
    });
    statusIs("web-forced-server.t:11", res, 200);

    res = await api.post("/api/connections", { url: "irc://irc.perl.org" });
    statusIs("web-forced-server.t:13", res, 400);
    res = await api.post("/api/connections", { url: "irc://irc.libera.chat" });
    statusIs("web-forced-server.t:14", res, 400);
    jsonIs(
      "web-forced-server.t:15",
      res,
      "/errors/0/message",
      "Will only accept forced connection URL.",
    );

    res = await api.get("/api/connections");
    statusIs("web-forced-server.t:17", res, 200);
    jsonIs("web-forced-server.t:18", res, "/connections/0/connection_id", "irc-example");
    jsonIs("web-forced-server.t:19", res, "/connections/0/name", "example");
    // LEFT OUT web-forced-server.t:20's tls=1 (design, docs/api.md "Differences from Convos"):
    // Parley spells out tls=0 for a bare irc://, which it reads as plain text.
    jsonIs("design", res, "/connections/0/url", "irc://chat.example.com:1234?nick=superman&tls=0");

    // web-forced-server.t:22: the new URL's host is ignored, its parameters are taken.
    res = await api.post("/api/connection/irc-example", {
      url: "irc://irc.perl.org?nick=superduper&tls=0&tls_verify=0",
    });
    statusIs("web-forced-server.t:24", res, 200);

    res = await api.get("/api/connections");
    statusIs("web-forced-server.t:26", res, 200);
    jsonIs("web-forced-server.t:27", res, "/connections/0/connection_id", "irc-example");
    jsonIs("web-forced-server.t:28", res, "/connections/0/name", "example");
    jsonIs(
      "web-forced-server.t:29",
      res,
      "/connections/0/url",
      "irc://chat.example.com:1234?nick=superduper&tls=0&tls_verify=0",
    );
  } finally {
    await server.close();
  }
});
