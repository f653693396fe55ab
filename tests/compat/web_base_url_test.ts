/**
 * Convos 8.07 t/web-base-url.t ported: the links Parley makes start at its base URL (the listen
 * URL, or PARLEY_BASE_URL behind a reverse proxy, as Convos's CONVOS_REQUEST_BASE).
 *
 * LEFT OUT web-base-url.t:13-25, 29-31 (perl internals): routes the test adds to the Mojolicious
 * app (`/t/base-url`, `/t/request-base`) to ask `url_for` and `web_url` directly. The links of
 * Convos's API that use them are checked instead: an invite link and the logout redirect.
 * LEFT OUT web-base-url.t:33-35, 44 (design): X-Request-Base, a header that moves the base per
 * request; Parley's base is configured (PARLEY_BASE_URL) and takes only X-Forwarded-Host and
 * X-Forwarded-Proto from a trusted proxy (client_needs_test.ts). So there is no error for the
 * header without a trusted proxy (web-base-url.t:46-48) either: the header is not read.
 */
import { apiLogout, compatServer, jsonLike, like, statusIs } from "../support/compat.ts";

/** An invite link made by a fresh admin. */
async function inviteOf(env: Record<string, string> = {}) {
  // No default connection: the admin has no need to reach an IRC network.
  const server = await compatServer({ env: { PARLEY_NEW_USER_CONNECTION: "0", ...env } });
  const api = server.client();
  try {
    await api.register("superman@example.com", "s3cret-enough");
    const invite = await api.post("/api/user/batman@example.com/invite");
    // Convos's logout link sends the browser back to the login page under the base URL.
    await apiLogout(api);
    const logout = await api.get("/logout");
    return { server: server.url, invite, logout };
  } finally {
    await server.close();
  }
}

Deno.test("web-base-url.t", async (t) => {
  await t.step("the listen URL", async () => {
    const { server, invite, logout } = await inviteOf();
    statusIs("web-base-url.t:38", invite, 200);
    // web-base-url.t:38-40: web_url is absolute, at the server's own address and port.
    jsonLike("web-base-url.t:38", invite, "/url", new RegExp(`^${server}/register\\?`));
    statusIs("web-base-url.t:39", logout, 302);
    like("web-base-url.t:39", logout.headers.get("location"), /^\/login$/, "location: ");
  });

  await t.step("PARLEY_BASE_URL with a path", async () => {
    // web-base-url.t:50-52: CONVOS_REQUEST_BASE=https://convos.chat/demo moves every link under
    // /demo.
    const { invite, logout } = await inviteOf({ PARLEY_BASE_URL: "https://convos.chat/demo" });
    statusIs("web-base-url.t:51", invite, 200);
    jsonLike("web-base-url.t:51", invite, "/url", /^https:\/\/convos\.chat\/demo\/register\?/);
    statusIs("web-base-url.t:52", logout, 302);
    like("web-base-url.t:52", logout.headers.get("location"), /^\/demo\/login$/, "location: ");
  });
});
