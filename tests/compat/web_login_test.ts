/** Convos 8.07 t/web-login.t ported: loginUser's input errors, the load request, logout. */
import { EventSocket } from "../support/events.ts";
import { compatServer, jsonIs, jsonLike, statusIs, withCsrf, within } from "../support/compat.ts";

// Convos's built-in default connection, given to Parley as configuration (web-login.t:35).
const CONVOS_DEFAULT = "irc://irc.libera.chat:6697/%23convos";

Deno.test("web-login.t", async () => {
  // web-login.t:8: a user made in the core, not registered.
  const server = await compatServer({
    defaultConnection: CONVOS_DEFAULT,
    seed: { users: [{ email: "superman@example.com", password: "s3cret" }] },
  });
  const api = server.client();
  try {
    // LEFT OUT web-login.t:10 (html): the /login page.
    statusIs("web-login.t:11", await api.get("/api/user"), 401);
    // LEFT OUT web-login.t:14 (html): /user/recover/... is no page of Convos; Parley's client shell
    // answers every non-API path and has no such route either.

    let res = await api.request("POST", "/api/user/login");
    statusIs("web-login.t:16", res, 400);
    jsonIs("web-login.t:17", res, "/errors/0", { message: "Missing property.", path: "/body" });

    res = await api.post("/api/user/login", { email: "xyz", password: "foo" });
    statusIs("web-login.t:19", res, 400);
    jsonIs("web-login.t:20", res, "/errors/0", {
      message: "Does not match email format.",
      path: "/body/email",
    });

    res = await api.post("/api/user/login", { email: "superman@example.com" });
    statusIs("web-login.t:22", res, 400);
    jsonIs("web-login.t:23", res, "/errors/0/path", "/body/password");

    res = await api.post("/api/user/login", { email: "superman@example.com", password: "xyz" });
    statusIs("web-login.t:25", res, 400);
    jsonIs("web-login.t:26", res, "/errors/0", {
      message: "Invalid email or password.",
      path: "/",
    });

    res = await api.post("/api/user/login", { email: "superman@example.com", password: "s3cret" });
    statusIs("web-login.t:28", res, 200);
    jsonIs("web-login.t:29", res, "/email", "superman@example.com");
    jsonLike("web-login.t:30", res, "/registered", /^[\d-]+T[\d:.]+Z$/);

    const ws = await EventSocket.open(api);
    try {
      ws.ws.send(
        JSON.stringify({ method: "load", object: "user", params: { connections: 1 } }),
      );
      const ev = { body: await within(5000, ws.waitFor((e) => e.event !== "handshake")) };
      const loaded = { ...ev, status: 200, headers: new Headers() };
      jsonIs("web-login.t:34", loaded, "/user/email", "superman@example.com");
      jsonIs("web-login.t:35", loaded, "/user/default_connection", CONVOS_DEFAULT);
      jsonIs("web-login.t:36", loaded, "/user/forced_connection", false);
    } finally {
      await ws.close();
    }

    statusIs("web-login.t:38", await api.get("/api/user"), 200);
    // LEFT OUT web-login.t:39, 41 (html): the /login page.
    res = await withCsrf(api, "/logout");
    statusIs("web-login.t:40", res, 302);
    jsonIs(
      "web-login.t:40",
      { ...res, body: { location: res.headers.get("location") } },
      "/location",
      "/login",
    );
    statusIs("web-login.t:42", await api.get("/api/user"), 401);
  } finally {
    await server.close();
  }
});
