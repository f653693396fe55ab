// deno-lint-ignore-file no-explicit-any -- answers are read field by field
/**
 * Login by the reverse proxy's header (PARLEY_AUTH_HEADER): the user it names is logged in and,
 * when new, registered; the first only when the operator named them (PARLEY_ADMIN); a header
 * that names nobody usable logs nobody in, whatever session the browser holds; the proxy's login
 * counts as a fresh password; the password login stays.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { captureErrors, startApp } from "../support/app.ts";
import { ManualClock } from "../support/manual_clock.ts";
import { RECENT_PASSWORD_MS } from "../../http/session.ts";
import { startIrcServer } from "../support/ngircd.ts";
import { poll } from "../support/poll.ts";
import { EventSocket } from "../support/events.ts";

const HEADER = "X-Authenticated-User";
const LOGOUT = 'https://auth.example.com/logout?rd=https%3A%2F%2Fchat.example.com&x="1"';

Deno.test("proxy login: the header's user is logged in, registered on first sight", async (t) => {
  const irc = await startIrcServer();
  const a = await startApp({
    PARLEY_REVERSE_PROXY: "1",
    PARLEY_AUTH_HEADER: HEADER,
    PARLEY_ADMIN: "root@example.com",
    PARLEY_NEW_USER_CONNECTION: "1",
    PARLEY_DEFAULT_CONNECTION: `irc://127.0.0.1:${irc.port}/%23lobby`,
    PARLEY_AUTH_LOGOUT_URL: LOGOUT,
  });
  const clock = new ManualClock();
  clock.advance(Date.now());
  a.deps.wallClock = clock;
  /**
   * A browser's request through the proxy (a page's fetch: Sec-Fetch-Site), the header the proxy
   * sets and the browser's cookie if any.
   */
  const as = (email: string | undefined, path: string, cookie?: string, init: RequestInit = {}) =>
    a.request(path, {
      ...init,
      headers: {
        "sec-fetch-site": "same-origin",
        ...(email === undefined ? {} : { [HEADER]: email }),
        ...(cookie ? { cookie } : {}),
        ...(init.body ? { "content-type": "application/json" } : {}),
      },
    });
  /** A script's request through the proxy: the header only, no cookie, no Sec-Fetch-Site. */
  const script = (path: string, init: RequestInit = {}) =>
    a.request(path, {
      ...init,
      headers: {
        [HEADER]: "root@example.com",
        ...(init.body ? { "content-type": "application/json" } : {}),
      },
    });
  const cookieOf = (res: { headers: Headers }) =>
    res.headers.getSetCookie().find((c) => c.startsWith("parley="))?.split(";")[0];
  let rootCookie = "";
  try {
    await t.step("on an empty install, only PARLEY_ADMIN is registered, as the admin", async () => {
      const { value: bob, lines } = await captureErrors(() => as("bob@example.com", "/api/user"));
      assertEquals(bob.status, 401);
      assert(lines.some((l) => l.includes("PARLEY_ADMIN")), lines.join("\n"));
      assertEquals((await as(undefined, "/api/install")).body.first_user, true);

      const root = await as("Root@Example.com", "/api/user");
      assertEquals(root.status, 200, JSON.stringify(root.body));
      assertEquals([root.body.email, root.body.roles], ["root@example.com", ["admin"]]);
      rootCookie = cookieOf(root) ?? "";
      assert(rootCookie, "a session cookie");
    });

    await t.step("the cookie with the same header is the same session", async () => {
      const again = await as("root@example.com", "/api/user/sessions", rootCookie);
      assertEquals(again.status, 200);
      assertEquals(cookieOf(again), undefined, "no new session");
      assertEquals(again.body.sessions.length, 1);
      assertEquals(again.body.sessions[0].current, true);
    });

    await t.step(
      "a script's requests open no session; a socket and a push subscription do",
      async () => {
        const sessions = async () =>
          (await as("root@example.com", "/api/user/sessions", rootCookie)).body.sessions.length;
        for (let i = 0; i < 3; i++) {
          const res = await script("/api/user");
          assertEquals([res.status, res.body.email], [200, "root@example.com"]);
          assertEquals(cookieOf(res), undefined, "no session for a script's request");
        }
        assertEquals(await sessions(), 1, "the browser's session only");
        // Over plain HTTP a browser sends no Sec-Fetch-Site, but its page's Referer.
        const page = await a.request("/api/user", {
          headers: { [HEADER]: "root@example.com", referer: "http://chat.example.com/chat" },
        });
        assert(cookieOf(page), "a session for a browser's request over plain HTTP");
        assertEquals(await sessions(), 2);

        const pushed = await script("/api/push/subscriptions", {
          method: "POST",
          body: JSON.stringify({
            endpoint: "https://8.8.8.8/send/script", // a literal address: no DNS
            keys: { p256dh: "B".repeat(87), auth: "A".repeat(22) },
          }),
        });
        assertEquals(pushed.status, 201, JSON.stringify(pushed.body));
        assertEquals(await sessions(), 3, "a subscription hangs on a session");

        // A socket lives as long as its session, checked before each request is answered: a
        // script's socket opens one.
        const server = await a.listen();
        const socket = await EventSocket.open(
          { base: `http://127.0.0.1:${server.port}`, cookieHeader: "" },
          { [HEADER]: "root@example.com" },
        );
        try {
          assertEquals((await socket.request({ method: "load" })).user?.email, "root@example.com");
          assertEquals(socket.ws.readyState, WebSocket.OPEN);
          assertEquals(await sessions(), 4);
        } finally {
          await socket.close();
          await server.stop();
        }
      },
    );

    await t.step(
      "a later person is registered without a role, with the default connection",
      async () => {
        const bob = await as("bob@example.com", "/api/user");
        assertEquals([bob.status, bob.body.email, bob.body.roles], [200, "bob@example.com", []]);
        const conn = await poll("bob's default connection connected", async () => {
          const res = await as("bob@example.com", "/api/connections", cookieOf(bob));
          const c = res.body.connections?.[0];
          return c?.state === "connected" ? c : undefined;
        }, 30_000);
        assertEquals(conn.info.nick, "bob");
        const users = await as("root@example.com", "/api/users", rootCookie);
        assertEquals(users.body.users.map((u: any) => u.email).sort(), [
          "bob@example.com",
          "root@example.com",
        ]);
      },
    );

    await t.step("the header names someone else: the browser's session is theirs", async () => {
      const bob = await as("bob@example.com", "/api/user", rootCookie);
      assertEquals(bob.body.email, "bob@example.com");
      const bobCookie = cookieOf(bob);
      assert(bobCookie && bobCookie !== rootCookie, "a session of bob's");
      // Root's session in this browser is gone: the cookie alone no longer logs anyone in.
      assertEquals((await as(undefined, "/api/user", rootCookie)).status, 401);
      rootCookie = cookieOf(await as("root@example.com", "/api/user")) ?? "";
    });

    await t.step("a header that names no email logs nobody in, cookie or not", async () => {
      const { value: res, lines } = await captureErrors(() =>
        as("not an email", "/api/user", rootCookie)
      );
      assertEquals(res.status, 401);
      assert(lines.some((l) => l.includes("names no email")), lines.join("\n"));
      // The session is not ended by it: the proxy's next good request goes on with it.
      assertEquals((await as("root@example.com", "/api/user", rootCookie)).status, 200);
    });

    await t.step("the bot's account is nobody's to log in to", async () => {
      await a.deps.store.users.create("bot@example.com", "!unusable!", ["bot"]);
      const { value: res, lines } = await captureErrors(() => as("bot@example.com", "/api/user"));
      assertEquals(res.status, 401);
      assert(lines.some((l) => l.includes("the bot's account")), lines.join("\n"));
    });

    await t.step("a suspended account is nobody's, and is told why", async () => {
      const bob = await as("bob@example.com", "/api/user");
      const bobCookie = cookieOf(bob);
      const suspended = await as("root@example.com", "/api/user/bob%40example.com", rootCookie, {
        method: "POST",
        body: JSON.stringify({ suspended: true }),
      });
      assertEquals(suspended.status, 200, JSON.stringify(suspended.body));
      const { value: res, lines } = await captureErrors(() =>
        as("bob@example.com", "/api/user", bobCookie)
      );
      // Its person has no password to try: the answer says why, not "log in".
      assertEquals(res.status, 403);
      assertEquals(res.body.errors, [{ message: "This account is suspended.", path: "/" }]);
      assertEquals(cookieOf(res), undefined, "a session for a suspended account");
      assert(lines.some((l) => l.includes("a suspended account")), lines.join("\n"));
      const script = await a.request("/api/user", { headers: { [HEADER]: "bob@example.com" } });
      assertEquals(script.status, 403);
      // An admin's operation too; and without the header, the session is still nobody's.
      assertEquals((await as("bob@example.com", "/api/users", bobCookie)).status, 403);
      assertEquals((await as(undefined, "/api/user", bobCookie)).status, 401);
      // The page's socket is refused with the same words.
      const server = await a.listen();
      try {
        const socket = await EventSocket.open(
          { base: `http://127.0.0.1:${server.port}`, cookieHeader: "" },
          { [HEADER]: "bob@example.com" },
        );
        const refused = await socket.waitFor((e) => e.event === "handshake");
        assertEquals(refused.errors, [{ message: "This account is suspended.", path: "/" }]);
        await socket.closed;
      } finally {
        await server.stop();
      }
      const back = await as("root@example.com", "/api/user/bob%40example.com", rootCookie, {
        method: "POST",
        body: JSON.stringify({ suspended: false }),
      });
      assertEquals(back.status, 200, JSON.stringify(back.body));
      assertEquals((await as("bob@example.com", "/api/user")).body.email, "bob@example.com");
    });

    await t.step("the proxy's login counts as the password just given", async () => {
      // Long after the session opened: a password login's session would be asked for it again.
      clock.advance(RECENT_PASSWORD_MS + 1000);
      const token = await as("root@example.com", "/api/tokens", rootCookie, {
        method: "POST",
        body: JSON.stringify({ name: "irssi" }),
      });
      assertEquals(token.status, 201, JSON.stringify(token.body));
      const set = await as("root@example.com", "/api/user/root%40example.com", rootCookie, {
        method: "POST",
        body: JSON.stringify({ password: "a password of root's own" }),
      });
      assertEquals(set.status, 200, JSON.stringify(set.body));
      // A new password ends the old sessions and opens one for this browser.
      rootCookie = cookieOf(set) ?? "";
    });

    await t.step("logging out leads to the proxy's logout, which the page names", async () => {
      const user = await as("root@example.com", "/api/user", rootCookie);
      const csrf = encodeURIComponent(user.body.csrf);
      const out = await as("root@example.com", `/api/user/logout?csrf=${csrf}`, rootCookie);
      assertEquals([out.status, out.headers.get("location")], [302, new URL(LOGOUT).href]);
      // Convos's client leaves by the page's own /logout.
      const page = await as("root@example.com", "/logout", rootCookie);
      assertEquals([page.status, page.headers.get("location")], [302, new URL(LOGOUT).href]);
      const html = (await as("root@example.com", "/chat")).body as string;
      const meta = /<meta name="parley-logout" content="([^"]*)"/.exec(html)?.[1];
      assertEquals(meta, new URL(LOGOUT).href.replaceAll("&", "&#38;"));
    });

    await t.step("without the header, the password login works as ever", async () => {
      assertEquals((await as(undefined, "/api/user")).status, 401);
      const login = await a.post("/api/user/login", {
        email: "root@example.com",
        password: "a password of root's own",
      });
      assertEquals(login.status, 200, JSON.stringify(login.body));
      const res = await as(undefined, "/api/user", cookieOf(login));
      assertEquals(res.body.email, "root@example.com");
    });
  } finally {
    await a.close();
    await irc.close();
  }
});

Deno.test("proxy login: without PARLEY_AUTH_HEADER the header means nothing", async () => {
  const a = await startApp({ PARLEY_REVERSE_PROXY: "1" });
  try {
    await a.register("root@example.com");
    const res = await a.request("/api/user", { headers: { [HEADER]: "root@example.com" } });
    assertEquals(res.status, 401);
  } finally {
    await a.close();
  }
});
