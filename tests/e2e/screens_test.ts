/**
 * Every screen a new user meets is really on screen: checked with
 * assertOnScreen at a desktop and a phone size, from "Create one" to the first channel.
 */
import { startServer } from "../support/server.ts";
import { startIrcServer } from "../support/ngircd.ts";
import { assertOnScreen, launchBrowser, newPage } from "../support/browser.ts";
import { fillConnection } from "../support/chat_page.ts";
import { assertEquals } from "../support/assert.ts";

const SIZES = [
  { name: "desktop", width: 1280, height: 800 },
  { name: "phone", width: 390, height: 844 },
];

Deno.test("web screens: register, connect, log in and set a password are on screen", async (t) => {
  const irc = await startIrcServer();
  const browser = await launchBrowser();
  try {
    for (const size of SIZES) {
      await t.step(`${size.name}: Create one, register, add a connection, chat`, async () => {
        // Only the first user may register without an invite: one daemon per size.
        const server = await startServer();
        const context = await browser.newContext({ viewport: size });
        const { page, errors } = await newPage(context);
        try {
          const email = `${size.name}@example.com`;
          // "/" opens on registration on a fresh install (account_test.ts); from the login form:
          await page.goto(server.url + "/login");
          await assertOnScreen(page, page.getByRole("heading", { name: "Log in" }));
          await page.getByRole("link", { name: "Create one" }).click();
          await page.waitForURL("**/register");
          await assertOnScreen(page, page.getByRole("heading", { name: "Create an account" }));
          await page.getByLabel("Email").fill(email);
          await page.getByLabel("Password", { exact: true }).fill("a long enough password");
          await page.getByRole("button", { name: "Create account" }).click();
          await page.waitForURL("**/settings/connection/add");
          await assertOnScreen(page, page.getByRole("heading", { name: "Add connection" }));
          await fillConnection(page, irc.port, { channel: `#${size.name}` });
          await page.getByRole("button", { name: "Connect" }).click();
          await page.waitForURL("**/chat/**");
          await page.goto(server.url + `/chat/irc-localhost/%23${size.name}`);
          await assertOnScreen(page, page.getByRole("heading", { name: `#${size.name}` }));
          await assertOnScreen(page, page.getByLabel("Message", { exact: true }));

          // Logging in again (the phone case of the issue) lands on a visible screen too.
          await page.context().clearCookies();
          await page.goto(server.url + "/login");
          await assertOnScreen(page, page.getByRole("heading", { name: "Log in" }));
          await page.getByLabel("Email").fill(email);
          await page.getByLabel("Password", { exact: true }).fill("a long enough password");
          await page.getByRole("button", { name: "Log in" }).click();
          await page.waitForURL("**/chat/**");
          await assertOnScreen(page, page.getByLabel("Message", { exact: true }));
          assertEquals(errors, []);
        } finally {
          await context.close();
          await server.close();
        }
      });
    }
  } finally {
    await browser.close();
    await irc.close();
  }
});
