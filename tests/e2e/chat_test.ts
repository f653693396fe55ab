/** The web client in real headless Chromium against the real daemon and a real ngircd. */
import { assert, assertEquals, assertStringIncludes } from "../support/assert.ts";
import { startServer } from "../support/server.ts";
import { startIrcServer } from "../support/ngircd.ts";
import { RawIrcClient } from "../support/irc_client.ts";
import { ApiClient } from "../support/api.ts";
import {
  assertOnScreen,
  hasHorizontalOverflow,
  launchBrowser,
  newPage,
  screenshot,
} from "../support/browser.ts";
import { connect, deskPage, fillConnection } from "../support/chat_page.ts";

Deno.test("web client: register, connect, chat live, mention badge, narrow screens, log out", async (t) => {
  const irc = await startIrcServer();
  const server = await startServer();
  const browser = await launchBrowser();
  // These tests take the network away; account_test covers the service worker.
  const { context, page, errors } = await deskPage(browser);
  // The page's sockets, for a step that acts the moment a line arrives.
  await page.addInitScript(() => {
    const Native = WebSocket;
    const g = globalThis as { sockets?: WebSocket[] };
    globalThis.WebSocket = class extends Native {
      constructor(url: string | URL, protocols?: string | string[]) {
        super(url, protocols);
        (g.sockets ??= []).push(this);
      }
    };
  });
  // Network failures, each with the request it failed and whether the test had the daemon down
  // or the page offline then: only those are the test's doing.
  let down = false;
  const failures: string[] = [];
  page.on("requestfailed", (r) => {
    const error = r.failure()?.errorText ?? "";
    // A request the page gave up (a navigation, a reload) failed nowhere.
    if (error === "net::ERR_ABORTED") return;
    failures.push(`${error} ${r.method()} ${r.url()}${down ? " (down)" : ""}`);
  });
  page.on("console", (m) => {
    if (m.type() === "error" && /net::ERR_/.test(m.text()) && !down) {
      failures.push(`${m.text()} (${m.location().url})`);
    }
  });
  let bob: RawIrcClient | undefined;
  try {
    await t.step("the app page is served with a strict policy and the bundle", async () => {
      const res = await fetch(server.url + "/chat/irc-x/%23y");
      assertEquals(res.status, 200);
      const csp = res.headers.get("content-security-policy") ?? "";
      // Only the bundle may run (uploads share the origin); the page below still runs it.
      assertStringIncludes(csp, `script-src ${server.url}/dist/;`);
      assert(!csp.includes("unsafe-inline"), "no inline script");
      assertStringIncludes(await res.text(), '<script type="module" src="/dist/app.js">');
      const js = await fetch(server.url + "/dist/app.js");
      assertEquals(js.headers.get("content-type"), "text/javascript; charset=utf-8");
      const etag = js.headers.get("etag")!;
      await js.body?.cancel();
      const again = await fetch(server.url + "/dist/app.js", {
        headers: { "if-none-match": etag },
      });
      assertEquals(again.status, 304);
      await again.body?.cancel();
      const manifest = await fetch(server.url + "/manifest.webmanifest");
      assertEquals(manifest.headers.get("content-type"), "application/manifest+json");
      assertEquals((await manifest.json()).name, "Parley");
      const missing = await fetch(server.url + "/nope.js");
      assertEquals(missing.status, 404);
      await missing.body?.cancel();
    });

    await t.step("an anonymous visitor sees the login form with labelled fields", async () => {
      // "/" would open on registration: this install has no account yet (account_test.ts).
      await page.goto(server.url + "/login");
      await page.waitForURL("**/login");
      await assertOnScreen(page, page.getByRole("heading", { name: "Log in" }));
      await assertOnScreen(page, page.getByLabel("Email"));
      await assertOnScreen(page, page.getByLabel("Password", { exact: true }));
      await screenshot(page, "login");
    });

    await t.step("a wrong password shows the API's error", async () => {
      await page.getByLabel("Email").fill("nobody@example.com");
      await page.getByLabel("Password", { exact: true }).fill("wrong password");
      await page.getByRole("button", { name: "Log in" }).click();
      await page.getByText("Invalid email or password.").waitFor();
    });

    await t.step(
      "the first user registers, sees a too-short password error at the field",
      async () => {
        await page.getByRole("link", { name: "Create one" }).click();
        await page.waitForURL("**/register");
        await assertOnScreen(page, page.getByRole("heading", { name: "Create an account" }));
        await page.getByLabel("Email").fill("alice@example.com");
        await page.getByLabel("Password", { exact: true }).fill("short");
        await page.getByRole("button", { name: "Create account" }).click();
        const error = page.locator("#f-password-error");
        await error.waitFor();
        assertStringIncludes((await error.textContent()) ?? "", "10");
        await screenshot(page, "register");
        await page.getByLabel("Password", { exact: true }).fill("a long enough password");
        await page.getByRole("button", { name: "Create account" }).click();
        await page.waitForURL("**/settings/connection/add");
        await assertOnScreen(page, page.getByRole("heading", { name: "Add connection" }));
      },
    );

    await t.step("adding a connection joins a channel", async () => {
      await fillConnection(page, irc.port, { nick: "alice", channel: "#test" });
      await screenshot(page, "connection-add");
      await connect(page);
      const link = page.getByRole("link", { name: "#test" });
      await link.waitFor();
      await page.locator(".conn .dot.connected").waitFor();
      assertEquals(await page.locator(".conn .state").textContent(), "connected");
      await link.click();
      await page.waitForURL("**/chat/irc-localhost/%23test");
      await assertOnScreen(page, page.getByRole("heading", { name: "#test" }));
      await assertOnScreen(page, page.getByLabel("Message", { exact: true }));
    });

    await t.step("a message from a raw IRC client arrives live", async () => {
      bob = await RawIrcClient.connect(irc.port, "bob");
      // Parley shows the channel before the server has confirmed its JOIN; wait for that.
      await bob.waitForMember("#test", "alice");
      await bob.join("#test");
      // Parley saw bob join: he is in the member list (the join line itself may be collapsed
      // with alice's own into "2 joined").
      await page.getByRole("complementary", { name: "Members" }).getByRole("listitem")
        .filter({ hasText: "bob" }).waitFor();
      await bob.send("PRIVMSG #test :hello from \x02bob\x02 https://example.invalid/x");
      const line = page.locator(".line", { hasText: "hello from bob" });
      await assertOnScreen(page, line);
      assertEquals(await line.locator(".b").textContent(), "bob");
      assertEquals(
        await line.locator("a[href='https://example.invalid/x']").getAttribute("target"),
        "_blank",
      );
    });

    await t.step("Enter sends, /me is an action, unknown commands explain themselves", async () => {
      const box = page.getByLabel("Message", { exact: true });
      await box.fill("hi bob");
      await box.press("Enter");
      await bob!.waitFor((l) => l.command === "PRIVMSG" && l.params[1] === "hi bob");
      await box.fill("/me waves");
      await box.press("Enter");
      await bob!.waitFor((l) => l.command === "PRIVMSG" && l.params[1] === "\x01ACTION waves\x01");
      await page.locator(".line.action", { hasText: "waves" }).waitFor();
      await box.fill("/frobnicate");
      await box.press("Enter");
      await page.getByText("Unknown command: /frobnicate").waitFor();
      assertEquals(await box.inputValue(), "/frobnicate", "a mistyped command stays to be fixed");
      await box.fill("");
      await box.press("ArrowUp");
      assertEquals(await box.inputValue(), "/me waves");
      await box.fill("bo");
      await box.press("Tab");
      assertEquals(await box.inputValue(), "bob: ");
      await box.fill("");
      await screenshot(page, "chat");
    });

    await t.step(
      "Enter while a line is still going out sends the next after it, in order",
      async () => {
        const box = page.getByLabel("Message", { exact: true });
        // Past the send queue's burst a line waits its turn (2 s here): the box waits for its
        // answer while the next lines are typed and entered.
        const lines = Array.from({ length: 7 }, (_, i) => `quick ${i + 1}`);
        for (const line of lines) {
          await box.fill(line);
          await box.press("Enter");
        }
        for (const line of lines) {
          await bob!.waitFor((l) => l.command === "PRIVMSG" && l.params[1] === line, 30_000);
        }
        const said = bob!.lines
          .filter((l) => l.command === "PRIVMSG" && l.params[1]?.startsWith("quick "))
          .map((l) => l.params[1]);
        assertEquals(said, lines);
        assertEquals(await box.inputValue(), "", "nothing left in the box");
      },
    );

    await t.step(
      "/join opens a channel, /topic sets its topic, Leave closes it, /query opens a chat",
      async () => {
        const box = page.getByLabel("Message", { exact: true });
        await box.fill("/join #second");
        await box.press("Enter");
        await page.waitForURL("**/chat/irc-localhost/%23second");
        await page.locator(".conv", { hasText: "#second" }).waitFor();
        await box.fill("/topic Plans for the weekend");
        await box.press("Enter");
        await page.locator(".topbar .topic", { hasText: "Plans for the weekend" }).waitFor();
        await page.getByRole("link", { name: "Conversation settings" }).click();
        await page.waitForURL("**/settings/conversation/irc-localhost/%23second");
        await assertOnScreen(page, page.getByRole("textbox", { name: "Topic" }));
        assertEquals(
          await page.getByRole("textbox", { name: "Topic" }).inputValue(),
          "Plans for the weekend",
        );
        await screenshot(page, "conversation-settings");
        await page.getByRole("button", { name: "Leave", exact: true }).click();
        await page.locator(".conv", { hasText: "#second" }).waitFor({ state: "detached" });
        await page.getByRole("link", { name: "#test" }).click();
        await box.fill("/query bob");
        await box.press("Enter");
        await page.waitForURL("**/chat/irc-localhost/bob");
        await page.locator(".conv", { hasText: "bob" }).waitFor();
        await page.getByRole("link", { name: "#test" }).click();
        await page.waitForURL("**/chat/irc-localhost/%23test");
      },
    );

    await t.step("a mention elsewhere shows a badge that reading clears", async () => {
      // The user leaves #test just as bob's line arrives: right after the page takes the line in,
      // before what follows it over the socket (its unread count, its mention) and before the
      // next frame. What follows is for a conversation no longer open: it stays unread.
      await page.evaluate(() => {
        const g = globalThis as { sockets?: WebSocket[]; left?: Promise<void> };
        const socket = g.sockets!.at(-1)!;
        g.left = new Promise((resolve) => {
          const leave = (e: MessageEvent) => {
            if (!String(e.data).includes("are you there?")) return;
            socket.removeEventListener("message", leave);
            document.querySelector<HTMLElement>(".conn h2 a")!.click();
            resolve();
          };
          socket.addEventListener("message", leave);
        });
      });
      await bob!.send("PRIVMSG #test :alice: are you there?");
      await page.evaluate(() => (globalThis as { left?: Promise<void> }).left);
      await page.waitForURL("**/chat/irc-localhost");
      const badge = page.locator(".conv", { hasText: "#test" }).locator(".badge.mention");
      await badge.waitFor();
      assertEquals(await badge.textContent(), "@1");
      await page.locator(".conv", { hasText: "#test" }).locator(".badge:not(.mention)").waitFor();
      await screenshot(page, "mention-badge");
      // The title names the server messages, open here, and counts the unread mention.
      assert(/^\(1\) .+ - Parley$/.test(await page.title()), await page.title());
      await page.getByRole("link", { name: /#test/ }).click();
      await assertOnScreen(page, page.locator(".line.highlight", { hasText: "are you there?" }));
      // The "new messages" marker sits right before the first unread message.
      const next = page.locator(".new-marker + .line");
      assertStringIncludes((await next.textContent()) ?? "", "are you there?");
      await badge.waitFor({ state: "detached" });
      // Alt+Up steps to the previous entry of the sidebar: the server conversation.
      await page.keyboard.press("Alt+ArrowUp");
      await page.waitForURL(/\/chat\/irc-localhost$/);
      await page.keyboard.press("Alt+ArrowDown");
      await page.waitForURL("**/chat/irc-localhost/%23test");
    });

    await t.step("notifications read on another device clear the badge here, live", async () => {
      const bell = page.getByRole("link", { name: "Notifications" }).locator(".badge");
      await bell.waitFor();
      const phone = new ApiClient(server.url);
      const login = await phone.post("/api/user/login", {
        email: "alice@example.com",
        password: "a long enough password",
      });
      assertEquals(login.status, 200);
      assertEquals((await phone.post("/api/notifications/read")).status, 200);
      await bell.waitFor({ state: "detached" });
    });

    await t.step("scrolling up loads older pages and keeps the reading position", async () => {
      await bob!.send("PRIVMSG #test :the quick zebra crossing");
      for (let i = 1; i <= 300; i++) await bob!.send(`PRIVMSG #test :line ${i}`);
      await page.locator(".line", { hasText: "line 300" }).waitFor();
      // The history asked for after the reload, to name the cause if more than a page comes.
      const asked: string[] = [];
      const noteAsked = (r: { url(): string }) => {
        if (r.url().includes("/messages")) asked.push(new URL(r.url()).search);
      };
      page.on("request", noteAsked);
      await page.reload();
      await page.locator(".line", { hasText: "line 300" }).waitFor();
      const count = () => page.locator(".line:not(.event)").count();
      const list = page.locator(".messages");
      const shown = await count();
      page.off("request", noteAsked);
      if (shown > 60) {
        const seen = await list.evaluate((el) => ({
          scrollTop: el.scrollTop,
          scrollHeight: el.scrollHeight,
          clientHeight: el.clientHeight,
        }));
        throw new Error(
          `the first page is one page: ${shown} lines, asked ${asked.join(" ")}, ${
            JSON.stringify(seen)
          }`,
        );
      }
      for (let pages = 0; pages < 10; pages++) {
        if (await page.locator(".history-start").isVisible()) break;
        const first = page.locator(".line:not(.event)").first();
        const ts = await first.getAttribute("data-ts");
        const before = await count();
        await list.evaluate((el) => (el.scrollTop = 0));
        // A page comes in front. The list also pages in by itself while its top is still near, so
        // the rest of the history may have come in between the check above and the count: then
        // the start of the history is shown and there is nothing left to load.
        await page.waitForFunction(
          (n) =>
            document.querySelectorAll(".line:not(.event)").length > n ||
            !!document.querySelector(".history-start"),
          before,
        ).catch(async (err) => {
          // Say what the list looked like, so that a failure names its cause.
          const seen = await list.evaluate((el) => ({
            scrollTop: el.scrollTop,
            scrollHeight: el.scrollHeight,
            clientHeight: el.clientHeight,
            lines: el.querySelectorAll(".line:not(.event)").length,
            loading: !!el.querySelector(".loading"),
            error: el.querySelector(".error")?.textContent ?? "",
          }));
          throw new Error(`no older page after ${before} lines: ${JSON.stringify(seen)}; ${err}`);
        });
        if ((await count()) === before) break;
        // The message that was at the top is still on screen, not pushed out of view.
        const box = await page.locator(`.line[data-ts="${ts}"]`).boundingBox();
        const view = (await list.boundingBox())!;
        assert(box && box.y >= view.y - 1 && box.y < view.y + view.height, "reading position kept");
      }
      await page.locator(".line", { hasText: "zebra" }).waitFor();
      await page.locator(".history-start").waitFor();
      assert((await count()) > 300, "all history was paged in");
    });

    await t.step("search finds a message and jumps to it in context", async () => {
      await page.getByRole("link", { name: "Search" }).click();
      await page.getByLabel("Search messages").fill("zebra");
      await page.getByLabel("Search messages").press("Enter");
      const result = page.locator(".result", { hasText: "the quick zebra crossing" });
      await assertOnScreen(page, result);
      await page.locator(".result-group h2", { hasText: "#test" }).waitFor();
      await screenshot(page, "search");
      await result.click();
      await page.waitForURL(/\/chat\/irc-localhost\/%23test\?around=/);
      const line = page.locator(".line.focus", { hasText: "zebra" });
      await assertOnScreen(page, line);
      await page.getByRole("button", { name: "Jump to latest" }).click();
      await assertOnScreen(page, page.locator(".line", { hasText: "line 300" }));
    });

    await t.step("notifications list the mention and jump to it", async () => {
      await page.getByRole("link", { name: "Notifications" }).click();
      const item = page.locator(".result", { hasText: "are you there?" });
      await assertOnScreen(page, item);
      await screenshot(page, "notifications");
      await item.click();
      await assertOnScreen(page, page.locator(".line.focus", { hasText: "are you there?" }));
    });

    await t.step("the socket reconnects by itself after the server restarts", async () => {
      await page.goto(server.url + "/chat/irc-localhost/%23test");
      await page.locator(".socket.open").waitFor();
      const seen = bob!.lines.length;
      down = true;
      await server.restart();
      await page.locator(".socket.open").waitFor({ timeout: 30_000 });
      down = false;
      await page.locator(".conn .dot.connected").waitFor({ timeout: 30_000 });
      await bob!.waitFor((l) =>
        l.command === "JOIN" && l.prefix.startsWith("alice") && bob!.lines.indexOf(l) >= seen
      );
      await bob!.send("PRIVMSG #test :after the restart");
      await assertOnScreen(page, page.locator(".line", { hasText: "after the restart" }));
    });

    await t.step("after losing the network, the client catches up on what it missed", async () => {
      await page.locator(".socket.open").waitFor();
      down = true;
      await context.setOffline(true);
      await page.locator(".socket:not(.open)").waitFor();
      await bob!.send("PRIVMSG #test :said while you were away");
      await page.getByText("said while you were away").waitFor({ state: "detached" });
      await context.setOffline(false);
      await page.locator(".socket.open").waitFor({ timeout: 30_000 });
      down = false;
      await assertOnScreen(page, page.locator(".line", { hasText: "said while you were away" }));
    });

    await t.step("going offline from a server that answers nothing shows it at once", async () => {
      await page.locator(".socket.open").waitFor();
      // A frozen daemon never answers the socket's closing handshake, as a peer behind a lost
      // network does not: the page must not wait for the browser to give up on it.
      const pid = server.pid!()!;
      down = true;
      Deno.kill(pid, "SIGSTOP");
      try {
        await context.setOffline(true);
        await page.locator(".socket:not(.open)").waitFor({ timeout: 5_000 });
      } finally {
        Deno.kill(pid, "SIGCONT");
        await context.setOffline(false);
      }
      await page.locator(".socket.open").waitFor({ timeout: 30_000 });
      down = false;
    });

    await t.step("an admin's invite link registers a second user", async () => {
      await page.goto(server.url + "/settings/users");
      await page.getByLabel("Email").fill("carol@example.com");
      await page.getByRole("button", { name: "Create invite link" }).click();
      const url = await page.getByLabel("Invite link").inputValue();
      assertStringIncludes(url, "/register?email=carol%40example.com");
      await screenshot(page, "admin-users");
      const other = await browser.newContext({ viewport: { width: 390, height: 844 } });
      const { page: carol, errors: carolErrors } = await newPage(other);
      await carol.goto(url.replace(/^https?:\/\/[^/]+/, server.url));
      await assertOnScreen(carol, carol.getByRole("heading", { name: "Choose your password" }));
      assertEquals(await carol.getByLabel("Email").inputValue(), "carol@example.com");
      await carol.getByLabel("Password", { exact: true }).fill("carol's long password");
      await carol.getByRole("button", { name: "Save password" }).click();
      await carol.waitForURL("**/settings/connection/add**");
      await assertOnScreen(carol, carol.getByRole("heading", { name: "Add connection" }));
      assert(!(await hasHorizontalOverflow(carol)));
      await other.close();

      // A reset link for the existing user sets a new password.
      await page.reload();
      await page.locator(".user-list li", { hasText: "carol@example.com" })
        .getByRole("button", { name: "Reset link" }).click();
      const reset = await page.getByLabel("Password reset link").inputValue();
      const again = await browser.newContext();
      const { page: carol2, errors: carol2Errors } = await newPage(again);
      await carol2.goto(reset.replace(/^https?:\/\/[^/]+/, server.url));
      await assertOnScreen(carol2, carol2.getByRole("heading", { name: "Choose your password" }));
      await carol2.getByLabel("Password", { exact: true }).fill("carol's new password!");
      await carol2.getByRole("button", { name: "Save password" }).click();
      await carol2.waitForURL(/\/(chat|settings)/);
      await carol2.getByRole("button", { name: "Log out" }).click();
      await carol2.waitForURL("**/login");
      await carol2.getByLabel("Email").fill("carol@example.com");
      await carol2.getByLabel("Password", { exact: true }).fill("carol's new password!");
      await carol2.getByRole("button", { name: "Log in" }).click();
      await carol2.waitForURL(/\/(chat|settings)/);

      // Suspended from the users page: carol's session ends, and her login says why.
      const row = page.locator(".user-list li", { hasText: "carol@example.com" });
      page.once("dialog", (d) => d.accept());
      await row.getByRole("button", { name: "Suspend" }).click();
      await assertOnScreen(page, row.getByText("user · suspended"));
      // Her open page is told at once, and leaves for the login.
      await carol2.waitForURL("**/login", { timeout: 5000 });
      await carol2.getByLabel("Email").fill("carol@example.com");
      await carol2.getByLabel("Password", { exact: true }).fill("carol's new password!");
      await carol2.getByRole("button", { name: "Log in" }).click();
      await assertOnScreen(carol2, carol2.getByText("This account is suspended."));
      await row.getByRole("button", { name: "End suspension" }).click();
      await assertOnScreen(page, row.getByRole("button", { name: "Suspend" }));
      assertEquals(await row.locator(".muted").textContent(), "user");
      await carol2.getByRole("button", { name: "Log in" }).click();
      await carol2.waitForURL(/\/(chat|settings)/);
      // But for the refused login's 403, as the browser reports it.
      assertEquals([...carolErrors, ...carol2Errors.filter((e) => !e.includes("403"))], []);
      await again.close();
    });

    await t.step("account and server settings save, and show errors at their field", async () => {
      await page.goto(server.url + "/settings/account");
      await page.getByLabel("Highlight keywords").fill("zebra, deploy");
      await page.getByLabel("New password").fill("short");
      await page.getByRole("button", { name: "Save" }).first().click();
      await page.locator("#f-password-error").waitFor();
      await page.getByLabel("New password").fill("");
      await page.getByRole("button", { name: "Save" }).first().click();
      await page.getByText("Saved.").waitFor();
      await page.reload();
      assertEquals(await page.getByLabel("Highlight keywords").inputValue(), "zebra, deploy");
      await page.goto(server.url + "/settings/server");
      await page.getByLabel("Contact").fill("ab");
      await page.getByRole("button", { name: "Save" }).click();
      assertStringIncludes(await page.locator("#f-contact-error").textContent() ?? "", "3");
      await page.getByLabel("Contact").fill("mailto:admin@example.com");
      await page.getByLabel("Organization name").fill("Example Chat");
      await page.getByRole("button", { name: "Save" }).click();
      await page.getByText("Saved.").waitFor();
      await page.locator(".meter").waitFor();

      await page.getByRole("link", { name: "Connection profiles" }).click();
      await page.getByLabel("Server URL").fill("irc://irc.example.org:6697");
      await page.getByRole("button", { name: "Save profile" }).click();
      const profile = page.locator(".user-list li", { hasText: "irc.example.org" });
      await profile.waitFor();
      await screenshot(page, "admin-profiles");
      await profile.getByRole("button", { name: "Delete" }).click();
      await profile.waitFor({ state: "detached" });
    });

    await t.step("settings screens render", async () => {
      for (
        const [path, name, heading] of [
          ["/settings/account", "account", "Account"],
          ["/settings/server", "admin-server", "Server settings"],
          ["/settings/connection/irc-localhost", "connection-edit", "Edit connection"],
        ]
      ) {
        await page.goto(server.url + path);
        await assertOnScreen(page, page.getByRole("heading", { name: heading }).first());
        await screenshot(page, name);
      }
    });

    await t.step(
      "every screen fits 390 px without sideways scrolling; the sidebar is a drawer",
      async () => {
        await page.setViewportSize({ width: 390, height: 844 });
        for (
          const path of [
            "/chat/irc-localhost/%23test",
            "/settings/account",
            "/settings/users",
            "/settings/connection/add",
            "/chat/notifications",
          ]
        ) {
          await page.goto(server.url + path);
          await assertOnScreen(page, page.locator("main h1").first());
          const wide = await page.evaluate(() =>
            [...document.querySelectorAll("body *")].filter((e) =>
              e.getBoundingClientRect().right > innerWidth + 1
            ).slice(0, 5).map((e) => `${e.tagName}.${e.className}`).join(" ")
          );
          assert(
            !(await hasHorizontalOverflow(page)),
            `${path} scrolls sideways at 390 px: ${wide}`,
          );
        }
        await page.goto(server.url + "/chat/irc-localhost/%23test");
        await assertOnScreen(page, page.getByLabel("Message", { exact: true }));
        await screenshot(page, "mobile-chat");
        assert(!(await page.locator(".sidebar").isVisible()), "the drawer starts closed");
        await page.getByRole("button", { name: "Open menu" }).click();
        await page.locator(".sidebar.open").waitFor();
        await assertOnScreen(page, page.getByRole("link", { name: "Account" }));
        await page.waitForFunction(() =>
          document.querySelector(".sidebar")!.getBoundingClientRect().left === 0
        );
        await screenshot(page, "mobile-drawer");
        await page.getByRole("link", { name: "Account" }).click();
        await page.waitForURL("**/settings/account");
        await assertOnScreen(page, page.getByRole("heading", { name: "Account" }).first());
        assert(!(await hasHorizontalOverflow(page)));
        await page.setViewportSize({ width: 1280, height: 800 });
      },
    );

    await t.step("dark theme and another language", async () => {
      await page.goto(server.url + "/settings/account");
      await page.getByLabel("Theme").selectOption("dark");
      await page.getByLabel("Language").selectOption("de");
      // Below the account's sessions: scrolled to, as a reader would.
      await page.getByRole("heading", { name: "Dieser Browser" }).scrollIntoViewIfNeeded();
      await assertOnScreen(page, page.getByRole("heading", { name: "Dieser Browser" }));
      await screenshot(page, "account-dark-de");
      await page.goto(server.url + "/chat/irc-localhost/%23test");
      await assertOnScreen(page, page.locator(".line", { hasText: "line 300" }));
      await screenshot(page, "chat-dark-de");
      await page.goto(server.url + "/settings/account");
      await page.getByLabel("Sprache").selectOption("en");
      await page.getByLabel("Theme").selectOption("system");
    });

    await t.step("logging out returns to the login screen and ends the session", async () => {
      await page.goto(server.url + "/chat");
      await page.getByRole("button", { name: "Log out" }).click();
      await page.waitForURL("**/login");
      await page.goto(server.url + "/chat");
      await page.waitForURL("**/login");
      await assertOnScreen(page, page.getByRole("heading", { name: "Log in" }));
    });

    await t.step("no errors in the browser console", () => {
      // While the test has the daemon down (a restart) or the page offline, requests fail: refused,
      // disconnected, or reset when one was on its way as the daemon stopped, and the /events
      // socket's reconnects fail; they say nothing about the client. Any network failure outside
      // those windows fails here with the request it was.
      const ours = errors.filter((e) =>
        !/WebSocket connection to '.*\/events' failed/.test(e) && !/net::ERR_/.test(e)
      );
      assertEquals(ours, []);
      assertEquals(failures.filter((f) => !f.endsWith("(down)")), []);
    });
  } finally {
    await screenshot(page, "last").catch(() => {});
    await bob?.close();
    await context.close();
    await browser.close();
    await server.close();
    await irc.close();
  }
});
