/** Convos 8.07 t/web-register-invite-only.t ported: registration needs an invite. */
import { apiLogout, compatServer, is, jsonIs, ok, statusIs, withCsrf } from "../support/compat.ts";
import type { ApiResponse } from "../support/api.ts";

Deno.test("web-register-invite-only.t", async () => {
  const server = await compatServer();
  const api = server.client();
  try {
    statusIs("web-register-invite-only.t:8", await api.get("/api/user"), 401);

    let res = await api.post("/api/user/superman@example.com/invite");
    statusIs("web-register-invite-only.t:10", res, 401);
    jsonIs("web-register-invite-only.t:11", res, "/errors/0/message", "Need to log in first.");
    res = await api.post("/api/user/superman@example.com/invite", {}, { "X-Local-Secret": "abc" });
    statusIs("web-register-invite-only.t:13", res, 401);
    jsonIs("web-register-invite-only.t:14", res, "/errors/0/message", "Need to log in first.");

    // LEFT OUT web-register-invite-only.t:17-18 (html): the register page's first_user meta tag.
    const first = { email: "first@convos.chat", password: "firstpassword" };
    statusIs("web-register-invite-only.t:20", await api.post("/api/user/register", first), 200);
    res = await withCsrf(api, "/logout");
    statusIs("web-register-invite-only.t:21", res, 302);
    is("web-register-invite-only.t:21", res.headers.get("location"), "/login", "Location: ");

    // LEFT OUT web-register-invite-only.t:24-32 (html): register pages for expired or bad links.
    // LEFT OUT web-register-invite-only.t:34-35 (perl internals): Convos's command line makes the
    // invite with the settings' local secret; here the first user, an admin, makes it instead.
    const admin = server.client();
    await admin.login(first.email, first.password);
    const invite: ApiResponse = await admin.post("/api/user/superman@example.com/invite");
    const url = new URL(invite.body?.url ?? "http://invalid/");
    // Without GET /logout the first user may still be logged in here: end that session too.
    await apiLogout(api);
    is("web-register-invite-only.t:39", url.searchParams.get("email"), "superman@example.com");
    ok("web-register-invite-only.t:40", url.searchParams.get("exp"), "register url exp");
    ok("web-register-invite-only.t:41", url.searchParams.get("token"), "register url token");
    // LEFT OUT web-register-invite-only.t:44-50 (html): the register page for the link.

    const register: Record<string, string> = {
      email: url.searchParams.get("email") ?? "",
      password: "tooshort0",
    };
    res = await api.post("/api/user/register", register);
    statusIs("web-register-invite-only.t:53", res, 400);
    jsonIs("web-register-invite-only.t:54", res, "/errors/0/path", "/body/password");

    register.password = "longenough";
    res = await api.post("/api/user/register", register);
    statusIs("web-register-invite-only.t:57", res, 401);
    jsonIs(
      "web-register-invite-only.t:58",
      res,
      "/errors/0/message",
      "Convos registration is not open to public.",
    );

    register.token = url.searchParams.get("token") ?? "";
    res = await api.post("/api/user/register", register);
    statusIs("web-register-invite-only.t:61", res, 401);
    jsonIs(
      "web-register-invite-only.t:62",
      res,
      "/errors/0/message",
      "Invalid token. You have to ask your Convos admin for a new link.",
    );
    statusIs("web-register-invite-only.t:65", await api.get("/api/user"), 401);

    register.exp = url.searchParams.get("exp") ?? "";
    res = await api.post("/api/user/register", register);
    statusIs("web-register-invite-only.t:68", res, 200);
    jsonIs("web-register-invite-only.t:69", res, "/email", register.email);
    statusIs("web-register-invite-only.t:71", await api.get("/api/user"), 200);
  } finally {
    await server.close();
  }
});
