/**
 * irc:// links in real Chromium against the real daemon and a real ngircd: the account page asks
 * the browser to open them here; a link leads to the add-connection form filled from it, to the
 * conversation, or to joining it; and the admin's server settings carry the private-address switch.
 */
import { assertEquals } from "../support/assert.ts";
import { startServer } from "../support/server.ts";
import { startIrcServer } from "../support/ngircd.ts";
import { assertOnScreen, launchBrowser, newPage } from "../support/browser.ts";
import { connect, register } from "../support/chat_page.ts";

Deno.test("irc:// links: handler, add form, conversation, join; the private switch", async (t) => {
  const irc = await startIrcServer();
  const server = await startServer();
  const browser = await launchBrowser();
  const context = await browser.newContext({
    viewport: { width: 1280, height: 800 },
    serviceWorkers: "block",
  });
  // The browser's own "allow this site to open irc:// links?" prompt is outside the page: the
  // calls the page makes are recorded on their way to it.
  await context.addInitScript(() => {
    const calls: string[][] = [];
    (globalThis as unknown as { handlerCalls: string[][] }).handlerCalls = calls;
    const original = navigator.registerProtocolHandler?.bind(navigator);
    navigator.registerProtocolHandler = (scheme: string, url: string) => {
      calls.push([scheme, url]);
      try {
        original?.(scheme, url);
      } catch {
        // headless Chromium may refuse; the page's part is the call
      }
    };
  });
  const { page, errors } = await newPage(context);
  page.on("response", (r) => {
    if (r.status() === 404) errors.push(`404 ${r.url()}`);
  });
  const link = (uri: string) => `${server.url}/register?uri=${encodeURIComponent(uri)}`;
  try {
    await t.step("register; a link to an unknown server fills the add form", async () => {
      await register(page, server.url, {
        email: "root@example.com",
        password: "a long enough password",
      });
      await page.goto(link(`irc://127.0.0.1:${irc.port}/%23linked`));
      await page.waitForURL((u) => u.pathname === "/settings/connection/add");
      await assertOnScreen(page, page.getByRole("heading", { name: "Add connection" }));
      const host = page.getByLabel("Host", { exact: true });
      await assertOnScreen(page, host);
      assertEquals(await host.inputValue(), "127.0.0.1");
      assertEquals(await page.getByLabel("Port").inputValue(), String(irc.port));
      assertEquals(await page.getByLabel("Use TLS").isChecked(), false);
      assertEquals(await page.getByLabel("Channels to join").inputValue(), "#linked");
      await connect(page);
      await page.getByRole("link", { name: "#linked" }).waitFor();
    });

    await t.step("a link to a conversation the user is in opens it", async () => {
      await page.goto(link(`irc://localhost:${irc.port}/%23linked`));
      await page.waitForURL("**/chat/irc-localhost/%23linked");
      await assertOnScreen(page, page.getByRole("heading", { name: "#linked" }));
    });

    await t.step("a link to another channel of a known server offers to join it", async () => {
      await page.goto(link(`irc://127.0.0.1:${irc.port}/%23other%20key`));
      await page.waitForURL((u) => u.pathname === "/settings/conversation");
      await assertOnScreen(page, page.getByText("Join #other on localhost?"));
      await page.getByRole("button", { name: "Join", exact: true }).click();
      await page.waitForURL("**/chat/irc-localhost/%23other");
      await assertOnScreen(page, page.getByRole("heading", { name: "#other" }));
    });

    await t.step("the account page asks the browser to open irc:// links here", async () => {
      await page.goto(server.url + "/settings/account");
      const button = page.getByRole("button", { name: "Open irc:// links here" });
      await button.scrollIntoViewIfNeeded();
      await assertOnScreen(page, button);
      await button.click();
      const calls = await page.evaluate(() =>
        (globalThis as unknown as { handlerCalls: string[][] }).handlerCalls
      );
      assertEquals(calls, [
        ["irc", `${server.url}/register?uri=%s`],
        ["ircs", `${server.url}/register?uri=%s`],
      ]);
    });

    await t.step("the server settings switch private addresses for every user", async () => {
      await page.goto(server.url + "/settings/server");
      const check = page.getByLabel("Users may connect to private addresses");
      // The server form is longer than the window: the admin scrolls down to it.
      await check.scrollIntoViewIfNeeded();
      await assertOnScreen(page, check);
      assertEquals(await check.isChecked(), false);
      await check.check();
      await page.getByRole("button", { name: "Save" }).click();
      await page.getByText("Saved.").waitFor();
      const saved = await page.evaluate(async () =>
        (await (await fetch("/api/settings")).json()).irc_allow_private
      );
      assertEquals(saved, true);
    });

    assertEquals(errors, []);
  } finally {
    await browser.close();
    await server.close();
    await irc.close();
  }
});
