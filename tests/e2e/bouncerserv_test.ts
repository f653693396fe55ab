/**
 * BouncerServ and client certificates in real Chromium against the real daemon: `/bouncerserv`
 * typed in the server conversation shows BouncerServ's answers there; an admin's server notice
 * shows in an open tab; the account page registers a pasted fingerprint and removes it.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { ApiClient } from "../support/api.ts";
import { startServer } from "../support/server.ts";
import { assertOnScreen, launchBrowser, newPage, screenshot } from "../support/browser.ts";
import { goLive, lineWith, sendLine } from "../support/chat_page.ts";

const PASSWORD = "a long enough password";
const FP = "0123456789abcdef".repeat(4);

Deno.test("web: /bouncerserv, a server notice, and client certificates", async () => {
  const server = await startServer();
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

    await goLive(page, `${server.url}/chat/${cid}`);
    await sendLine(page, "/bouncerserv network status");
    const status = lineWith(page, `${cid} (`);
    await assertOnScreen(page, status);
    assert((await status.innerText()).includes("BouncerServ"), await status.innerText());
    await sendLine(page, "/bouncerserv frobnicate");
    await assertOnScreen(page, lineWith(page, 'Unknown command "frobnicate"'));

    await sendLine(page, "/bouncerserv server notice Maintenance at noon");
    await assertOnScreen(page, page.getByRole("status").filter({ hasText: "Maintenance at noon" }));
    await screenshot(page, "bouncerserv-web");

    await page.goto(server.url + "/settings/account");
    const panel = page.getByRole("region", { name: "Client certificates" });
    await panel.scrollIntoViewIfNeeded();
    await panel.getByLabel("SHA-256 fingerprint").fill(FP.toUpperCase().match(/../g)!.join(":"));
    await panel.getByRole("button", { name: "Add the certificate" }).click();
    const item = panel.getByRole("list", { name: "Client certificates" }).getByRole("listitem");
    await assertOnScreen(page, item.filter({ hasText: FP }));
    assertEquals((await api.get("/api/certfps")).body.certfps[0].fingerprint, FP);
    await panel.getByLabel("SHA-256 fingerprint").fill("not one");
    await panel.getByRole("button", { name: "Add the certificate" }).click();
    await assertOnScreen(page, panel.getByText("64 hex digits"));
    await item.getByRole("button", { name: `Remove ${FP.slice(0, 16)}` }).click();
    await page.waitForFunction(() =>
      document.querySelectorAll('[aria-label="Client certificates"] li').length === 0
    );
    assertEquals((await api.get("/api/certfps")).body.certfps, []);
    // The refused fingerprint's 400 is expected; so is the server conversation's draft, which
    // has none (404).
    assertEquals(errors.filter((e) => !/status of (400|404)/.test(e)), []);
  } finally {
    await browser.close();
    await server.close();
  }
});
