/**
 * App tokens on the account page in real Chromium against the real daemon: a token is made and
 * shown once, an IRC client logs in with it through the bouncer listener, its last use shows, and
 * revoking it removes it from the list and refuses the next login.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { ApiClient } from "../support/api.ts";
import { startServer } from "../support/server.ts";
import { freePort } from "../support/ports.ts";
import { BouncerClient, plain } from "../support/bouncer_client.ts";
import { assertOnScreen, launchBrowser, newPage, screenshot } from "../support/browser.ts";

const PASSWORD = "a long enough password";

Deno.test("account: app tokens are made, used by an IRC client and revoked", async () => {
  const ircPort = freePort();
  const server = await startServer({ env: { PARLEY_IRC_LISTEN: `irc://127.0.0.1:${ircPort}` } });
  const browser = await launchBrowser();
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const { page, errors } = await newPage(context);
  try {
    const api = new ApiClient(server.url);
    await api.register("root@example.com", PASSWORD);
    const made = await api.post("/api/connections", {
      url: "irc://127.0.0.1:1?nick=root",
      wanted_state: "disconnected",
    });
    const cid = made.body.connection_id;
    await page.goto(server.url + "/login");
    await page.getByLabel("Email").fill("root@example.com");
    await page.getByLabel("Password", { exact: true }).fill(PASSWORD);
    await page.getByRole("button", { name: "Log in" }).click();
    await page.waitForURL((u) => u.pathname !== "/login");
    await page.goto(server.url + "/settings/account");

    const panel = page.getByRole("region", { name: "App tokens" });
    await panel.scrollIntoViewIfNeeded();
    await panel.getByLabel("Client name").fill("weechat");
    await panel.getByRole("button", { name: "Make a token" }).click();
    const shown = panel.locator("code.app-token");
    await assertOnScreen(page, shown);
    const token = await shown.innerText();
    assert(token.startsWith("parley-"), token);
    await screenshot(page, "account-app-tokens");

    const irc = await BouncerClient.attach(ircPort, `root@example.com/${cid}@weechat`, token);
    assertEquals((await irc.waitFor((l) => l.command === "001")).params[0], "root");
    irc.close();
    await page.reload();
    const item = page.getByRole("list", { name: "App tokens" }).getByRole("listitem");
    await item.filter({ hasText: "last used" }).waitFor();
    assertEquals(await item.count(), 1);

    await item.getByRole("button", { name: "Revoke weechat" }).click();
    await page.waitForFunction(() =>
      document.querySelectorAll('[aria-label="App tokens"] li').length === 0
    );
    const again = await BouncerClient.connect(ircPort);
    await again.send("CAP REQ :sasl");
    await again.send("AUTHENTICATE PLAIN");
    await again.waitFor((l) => l.command === "AUTHENTICATE");
    await again.send(`AUTHENTICATE ${plain(`root@example.com/${cid}`, token)}`);
    await again.waitFor((l) => l.command === "904");
    await again.waitClosed();
    assertEquals(errors, []);
  } finally {
    await browser.close();
    await server.close();
  }
});

Deno.test("account: a session opened by an invite link gives the password to make a token", async () => {
  const server = await startServer();
  const browser = await launchBrowser();
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const { page, errors } = await newPage(context);
  try {
    const api = new ApiClient(server.url);
    await api.register("root@example.com", PASSWORD);
    const invite = await api.post("/api/user/kim@example.com/invite");
    // The invite link opens the session, not a password: a stolen session of this kind must not
    // make a token that outlives the owner's next password.
    await page.goto(invite.body.url);
    await page.getByLabel("Password", { exact: true }).fill(PASSWORD);
    await page.getByRole("button", { name: "Save password" }).click();
    await page.waitForURL((u) => !u.pathname.startsWith("/register"));
    await page.goto(server.url + "/settings/account");
    const panel = page.getByRole("region", { name: "App tokens" });
    await panel.scrollIntoViewIfNeeded();
    await panel.getByLabel("Client name").fill("irssi");
    await panel.getByRole("button", { name: "Make a token" }).click();
    const dialog = page.getByRole("dialog", { name: "Confirm your password" });
    await assertOnScreen(page, dialog);
    await assertOnScreen(
      page,
      dialog.getByText("Enter your current password to make an app token."),
    );
    await dialog.getByLabel("Current password").fill(PASSWORD);
    await dialog.getByRole("button", { name: "Make a token" }).click();
    await dialog.waitFor({ state: "detached" });
    const shown = panel.locator("code.app-token");
    await assertOnScreen(page, shown);
    assert((await shown.innerText()).startsWith("parley-"));
    assertEquals(errors.filter((e) => !e.includes("400")), []);
  } finally {
    await browser.close();
    await server.close();
  }
});
