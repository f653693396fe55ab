/** Convos 8.07 t/web-register-open-to-public.t ported: anyone may register. */
import { compatServer, headerIs, is, statusIs } from "../support/compat.ts";

Deno.test("web-register-open-to-public.t", async () => {
  // web-register-open-to-public.t:10-12
  const server = await compatServer({
    defaultConnection: "irc://localhost:6123/%23convos%20s3cret",
    seed: { settings: { open_to_public: true } },
  });
  const api = server.client();
  try {
    // web-register-open-to-public.t:14-15: the page, with or without an irc:// link, before login.
    statusIs("web-register-open-to-public.t:14", await api.get("/register"), 200);
    statusIs(
      "web-register-open-to-public.t:15",
      await api.get(
        `/register?uri=${encodeURIComponent("irc://irc.example.com:6123/%23convos")}`,
      ),
      200,
    );
    let res = await api.post("/api/user/register", {
      email: "superman@example.com",
      password: "longenough",
    });
    statusIs("web-register-open-to-public.t:18", res, 200);
    // LEFT OUT web-register-open-to-public.t:20-26 (html): the chat page's meta tags.
    statusIs("web-register-open-to-public.t:28", await api.get("/api/user"), 200);
    // web-register-open-to-public.t:28-45: an irc:// link leads a logged-in user to the
    // conversation, the conversation's settings, or the add-connection form.
    let url = encodeURIComponent((await api.get("/api/user")).body.default_connection);
    res = await api.get(`/register?uri=${url}`);
    statusIs("web-register-open-to-public.t:30", res, 302);
    headerIs("web-register-open-to-public.t:31", res, "location", "/chat/irc-localhost/%23convos");
    url = url.replace("localhost", "127.0.0.1");
    res = await api.get(`/register?uri=${url}`);
    statusIs("web-register-open-to-public.t:34", res, 302);
    headerIs("web-register-open-to-public.t:35", res, "location", "/chat/irc-localhost/%23convos");
    url = url.replace(/convos$/, "superduper");
    res = await api.get(`/register?uri=${url}`);
    statusIs("web-register-open-to-public.t:38", res, 302);
    headerIs(
      "web-register-open-to-public.t:39",
      res,
      "location",
      "/settings/conversation?connection_id=irc-localhost&conversation_id=%23superduper",
    );
    url = url.replace("127.0.0.1", "irc.example.com");
    res = await api.get(`/register?uri=${url}`);
    statusIs("web-register-open-to-public.t:43", res, 302);
    headerIs(
      "web-register-open-to-public.t:44",
      res,
      "location",
      "/settings/connection/add?uri=irc%3A%2F%2Firc.example.com%3A6123%2F%2523superduper",
    );
    // Beside Convos's checks: anything but an irc:// or ircs:// link is not followed.
    for (
      const other of ["javascript:alert(1)", "https://evil.example/", "irc://", "x".repeat(3000)]
    ) {
      res = await api.get(`/register?uri=${encodeURIComponent(other)}`);
      statusIs("web-register-open-to-public.t:45", res, 200);
    }
    // And what the first redirect leads to exists in the API.
    const conns = await api.get("/api/connections");
    is(
      "web-register-open-to-public.t:31",
      conns.body?.connections?.map((c: { connection_id: string }) => c.connection_id),
      ["irc-localhost"],
      "connections: ",
    );
    const convs = await api.get("/api/conversations");
    is(
      "web-register-open-to-public.t:31",
      convs.body?.conversations?.map((c: { conversation_id: string }) => c.conversation_id),
      ["#convos"],
      "conversations: ",
    );
  } finally {
    await server.close();
  }
});
