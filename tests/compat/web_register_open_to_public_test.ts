/** Convos 8.07 t/web-register-open-to-public.t ported: anyone may register. */
import { compatServer, is, statusIs } from "../support/compat.ts";

Deno.test("web-register-open-to-public.t", async () => {
  // web-register-open-to-public.t:10-12
  const server = await compatServer({
    defaultConnection: "irc://localhost:6123/%23convos%20s3cret",
    seed: { settings: { open_to_public: true } },
  });
  const api = server.client();
  try {
    // LEFT OUT web-register-open-to-public.t:14-15 (html): the register page.
    const res = await api.post("/api/user/register", {
      email: "superman@example.com",
      password: "longenough",
    });
    statusIs("web-register-open-to-public.t:18", res, 200);
    // LEFT OUT web-register-open-to-public.t:20-26 (html): the chat page's meta tags.
    statusIs("web-register-open-to-public.t:28", await api.get("/api/user"), 200);
    // LEFT OUT web-register-open-to-public.t:30-45 (html): /register?uri=... redirects of
    // Convos's server-rendered pages. What they show of the API is checked here: registering made
    // the connection irc-localhost with the conversation #convos (line 31's redirect target).
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
