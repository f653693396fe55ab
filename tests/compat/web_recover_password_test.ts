/** Convos 8.07 t/web-recover-password.t ported: an invite for an existing user resets a password. */
import {
  apiLogout,
  compatServer,
  jsonIs,
  jsonLike,
  statusIs,
  withCsrf,
} from "../support/compat.ts";

Deno.test("web-recover-password.t", async (t) => {
  // web-recover-password.t:10: an admin made in the core.
  const server = await compatServer({
    seed: { users: [{ email: "admin@example.com", password: "adm1n", roles: ["admin"] }] },
  });
  const api = server.client();
  let recover = new URL("http://invalid/");
  try {
    await t.step("log in admin", async () => {
      const res = await api.post("/api/user/login", {
        email: "admin@example.com",
        password: "adm1n",
      });
      statusIs("web-recover-password.t:12", res, 200);
    });

    await t.step("create recover user and recover url", async () => {
      // web-recover-password.t:16: a user made in the core.
      await server.seed({ users: [{ email: "superman@example.com", password: "s3cret" }] });
      const res = await api.post("/api/user/superman@example.com/invite.json");
      statusIs("web-recover-password.t:17", res, 200);
      jsonIs("web-recover-password.t:18", res, "/existing", true);
      jsonLike("web-recover-password.t:18", res, "/expires", /^\d+-\d+-\d+/);
      jsonLike("web-recover-password.t:19", res, "/url", /^http/);
      if (typeof res.body?.url === "string") recover = new URL(res.body.url);
    });

    await t.step("log out admin", async () => {
      statusIs("web-recover-password.t:24", await withCsrf(api, "/logout"), 302);
      await apiLogout(api);
    });

    // LEFT OUT web-recover-password.t:28-29, 33-35 (html): the register page for a cut or a whole
    // recover link.

    await t.step("let recover user do the rest", async () => {
      const q = recover.searchParams;
      const register: Record<string, string> = {
        email: q.get("email") ?? "",
        password: "tooshort0",
      };
      let res = await api.post("/api/user/register", register);
      statusIs("web-recover-password.t:38", res, 400);
      jsonIs("web-recover-password.t:39", res, "/errors/0/path", "/body/password");

      register.password = "longenough";
      res = await api.post("/api/user/register", register);
      statusIs("web-recover-password.t:42", res, 401);
      jsonIs(
        "web-recover-password.t:43",
        res,
        "/errors/0/message",
        "Convos registration is not open to public.",
      );

      register.token = q.get("token") ?? "";
      res = await api.post("/api/user/register", register);
      statusIs("web-recover-password.t:46", res, 401);
      jsonIs(
        "web-recover-password.t:47",
        res,
        "/errors/0/message",
        "Invalid token. You have to ask your Convos admin for a new link.",
      );
      statusIs("web-recover-password.t:50", await api.get("/api/user"), 401);

      register.email = "superwoman@example.com";
      register.exp = q.get("exp") ?? "";
      res = await api.post("/api/user/register", register);
      statusIs("web-recover-password.t:54", res, 401);
      jsonIs(
        "web-recover-password.t:55",
        res,
        "/errors/0/message",
        "Invalid token. You have to ask your Convos admin for a new link.",
      );
      statusIs("web-recover-password.t:58", await api.get("/api/user"), 401);

      register.email = "superman@example.com";
      res = await api.post("/api/user/register", register);
      statusIs("web-recover-password.t:61", res, 200);
      jsonIs("web-recover-password.t:62", res, "/email", register.email);
      statusIs("web-recover-password.t:64", await api.get("/api/user"), 200);
    });
  } finally {
    await server.close();
  }
});
