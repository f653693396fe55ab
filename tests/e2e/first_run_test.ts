/**
 * The first run in real Chromium against the real daemon and ngircd: right after registering, the
 * first admin picks the network and channels every new user starts with (the admin too); a user
 * refused a private IRC server is told so above the button just pressed, on a phone where the
 * host field is off-screen; the admin's switch lets them.
 */
import { assertEquals, assertStringIncludes } from "../support/assert.ts";
import { startServer } from "../support/server.ts";
import { startIrcServer } from "../support/ngircd.ts";
import { RawIrcClient } from "../support/irc_client.ts";
import { ApiClient } from "../support/api.ts";
import { assertOnScreen, launchBrowser, newPage } from "../support/browser.ts";

const PASSWORD = "root's long password";

Deno.test("first run: the admin picks what new users start with", async (t) => {
  const irc = await startIrcServer();
  const server = await startServer({
    env: {
      PARLEY_TEST_FAST_IRC: "1",
      PARLEY_NEW_USER_CONNECTION: "1",
      // Ordinary users may not reach loopback until the admin allows it.
      PARLEY_IRC_ALLOW_PRIVATE: "0",
      // No PARLEY_DEFAULT_CONNECTION: the built-in default, which nobody has chosen yet.
    },
  });
  const browser = await launchBrowser();
  const desk = await browser.newContext({
    viewport: { width: 1280, height: 800 },
    serviceWorkers: "block",
  });
  const phone = await browser.newContext({
    viewport: { width: 390, height: 844 },
    serviceWorkers: "block",
  });
  const { page, errors } = await newPage(desk);
  const bob = await RawIrcClient.connect(irc.port, "bob");
  try {
    for (const c of ["#lobby", "#help"]) await bob.join(c);

    await t.step(
      "13: right after registering, the first admin picks network and channels",
      async () => {
        await page.goto(server.url + "/register");
        await page.getByLabel("Email").fill("root@example.com");
        await page.getByLabel("Password", { exact: true }).fill(PASSWORD);
        await page.getByRole("button", { name: "Create account" }).click();
        await page.waitForURL("**/settings/first-run");
        await assertOnScreen(
          page,
          page.getByRole("heading", { name: "What new users start with" }),
        );
        const host = page.getByLabel("Server", { exact: true });
        assertEquals(await host.inputValue(), "irc.libera.chat:6697");
        // The admin's own connection waits for the answer: the built-in network is not reached.
        const waiting = new ApiClient(server.url);
        await waiting.login("root@example.com", PASSWORD);
        const [own] = (await waiting.get("/api/connections")).body.connections;
        assertEquals([own.wanted_state, own.state], ["disconnected", "disconnected"]);
        assertEquals(await page.getByLabel("Channels").inputValue(), "#parley");
        await host.fill(`127.0.0.1:${irc.port}`);
        await page.getByLabel("Channels").fill("#lobby, help");
        await page.getByLabel("Use TLS").uncheck();
        const save = page.getByRole("button", { name: "Save and continue" });
        await assertOnScreen(page, save);
        await save.click();
        await page.waitForURL("**/chat/irc-localhost*");
        // The admin's own connection follows the choice: both channels, none of the old default.
        await bob.waitForMember("#lobby", "root");
        await bob.waitForMember("#help", "root");
        await page.locator(".sidebar .conv", { hasText: "#help" }).waitFor();
        assertEquals(await page.locator(".sidebar .conv", { hasText: "#parley" }).count(), 0);
      },
    );

    const admin = new ApiClient(server.url);
    await admin.login("root@example.com", PASSWORD);
    const { page: mobile } = await newPage(phone);

    await t.step("13: a new user starts in the admin's channels", async () => {
      const invite = await admin.post("/api/user/kim@example.com/invite");
      await mobile.goto(invite.body.url);
      await mobile.getByLabel("Password", { exact: true }).fill("kim's long password");
      await mobile.getByRole("button", { name: "Save" }).or(
        mobile.getByRole("button", { name: "Create account" }),
      ).first().click();
      await mobile.waitForURL((u) => u.pathname.startsWith("/chat"));
      await bob.waitForMember("#lobby", "kim");
      await bob.waitForMember("#help", "kim");
    });

    await t.step("13: a refused private server is told where the user is looking", async () => {
      await mobile.goto(server.url + "/settings/connection/add");
      // Another loopback address than the default connection's (whose server users may reach).
      await mobile.getByLabel("Host", { exact: true }).fill("127.0.0.2");
      await mobile.getByLabel("Port").fill(String(irc.port));
      await mobile.getByLabel("Use TLS").uncheck();
      await mobile.getByLabel("Nick").fill("kim2");
      const connect = mobile.getByRole("button", { name: "Connect" });
      await connect.scrollIntoViewIfNeeded();
      await connect.click();
      const alert = mobile.getByRole("alert").filter({ hasText: "ask an admin" });
      await alert.waitFor();
      await assertOnScreen(mobile, alert);
      assertStringIncludes(await alert.innerText(), "127.0.0.2");
      await assertOnScreen(mobile, connect);
    });

    await t.step("13: the admin's visible switch allows it", async () => {
      await page.goto(server.url + "/settings/server");
      const allow = page.getByLabel("Users may connect to private addresses");
      await allow.scrollIntoViewIfNeeded();
      await assertOnScreen(page, allow);
      await allow.check();
      await page.getByRole("button", { name: "Save" }).click();
      await page.getByText("Saved.").waitFor();
      await mobile.getByRole("button", { name: "Connect" }).click();
      await mobile.waitForURL((u) => u.pathname.startsWith("/chat/"));
    });

    await t.step("a connection that cannot connect says why in the sidebar", async () => {
      // Nothing listens on port 1: refused, tried again later and later.
      const res = await admin.post("/api/connections", { url: "irc://127.0.0.1:1?nick=root" });
      assertEquals(res.status, 200, JSON.stringify(res.body));
      await page.goto(server.url + "/chat");
      const why = page.locator(".sidebar .conn-why", {
        hasText: "Connection refused: nothing listens on that port.",
      });
      await assertOnScreen(page, why);
    });

    assertEquals(errors, []);
  } finally {
    await bob.close().catch(() => {});
    await browser.close();
    await server.close();
    await irc.close();
  }
});
