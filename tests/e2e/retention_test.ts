/**
 * Message retention in the web client: an admin sets it on the server settings screen (with the
 * per-user bounds: files in megabytes, connections), and the search screen then tells users how long
 * messages are kept; set by PARLEY_MESSAGE_RETENTION, the admin screen shows it as the operator's
 * and read-only. A failed save of that long form brings its first error into view. Real Chromium,
 * the real daemon.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { startServer } from "../support/server.ts";
import {
  assertOnScreen,
  launchBrowser,
  type Locator,
  newPage,
  type Page,
} from "../support/browser.ts";
import { poll } from "../support/poll.ts";
import { startIrcServer } from "../support/ngircd.ts";
import { goLive, registerAndConnect, sendLine } from "../support/chat_page.ts";

async function registerAdmin(page: Page, url: string) {
  await page.goto(url + "/register");
  await page.getByLabel("Email").fill("admin@example.com");
  await page.getByLabel("Password", { exact: true }).fill("a long enough password");
  await page.getByRole("button", { name: "Create account" }).click();
  await page.waitForURL("**/settings/connection/add");
}

/** The top bar's bottom edge: the page scrolls below it. */
const headerBottom = (page: Page) =>
  page.evaluate(() => document.querySelector(".page .topbar")!.getBoundingClientRect().bottom);

/** Whether `locator`'s box lies wholly between the top bar and the window's bottom edge. */
async function inView(locator: Locator): Promise<boolean> {
  const top = await headerBottom(locator.page());
  return await locator.evaluate((el, top) => {
    const r = el.getBoundingClientRect();
    return r.top >= top && r.bottom <= innerHeight;
  }, top);
}

/** Fails unless the focus comes to the field labelled `label`, in view below the top bar. */
async function focusedInView(page: Page, label: string) {
  const where = await poll(`the focus on "${label}"`, async () => {
    const focused = await page.evaluate(() => {
      const el = document.activeElement as HTMLInputElement | null;
      const r = el?.getBoundingClientRect();
      return {
        label: el?.labels?.[0]?.textContent ?? `<${el?.tagName.toLowerCase()}>`,
        top: r?.top,
        bottom: r?.bottom,
      };
    });
    if (focused.label !== label) throw new Error(`the focus is on ${focused.label}`);
    return focused;
  }, 5_000);
  const top = await headerBottom(page);
  const height = await page.evaluate(() => innerHeight);
  assert(
    where.top! >= top && where.bottom! <= height,
    `"${label}" at ${where.top}-${where.bottom}, not between the top bar (${top}) and ${height}`,
  );
}

Deno.test("retention: set on the admin screen, told on the search screen", async (t) => {
  const browser = await launchBrowser();
  try {
    await t.step("an admin's setting shows on the search screen", async () => {
      const server = await startServer();
      const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
      const { page, errors } = await newPage(context);
      try {
        await registerAdmin(page, server.url);
        await page.goto(server.url + "/chat/search?q=hello");
        await assertOnScreen(page, page.getByRole("button", { name: "Search" }));
        assertEquals(await page.getByText(/are deleted/).count(), 0, "no note while kept");

        await page.goto(server.url + "/settings/server");
        // The form is longer than the screen: a failed save brings the field in error into view.
        const errorOnScreen = (text: string) =>
          assertOnScreen(page, page.getByRole("alert").filter({ hasText: text }));
        const field = page.getByLabel("Message retention");
        await field.fill("forever");
        await page.getByRole("button", { name: "Save" }).click();
        await errorOnScreen("365d, 12w or 1y");
        await field.fill("12w");
        await page.getByRole("button", { name: "Save" }).click();
        await assertOnScreen(page, page.getByText("Saved."));

        // The bound on one user's files: typed in megabytes, kept in bytes.
        const files = page.getByLabel("Files per user (MB)");
        await files.scrollIntoViewIfNeeded();
        await assertOnScreen(page, files);
        assertEquals(await files.inputValue(), "1000");
        await files.fill("lots");
        await page.getByRole("button", { name: "Save" }).click();
        await errorOnScreen("A number of megabytes; 0 for no limit.");
        await files.fill("250");
        // The per-user counts, shown as the server keeps them.
        const conns = page.getByLabel("Connections per user");
        assertEquals(await conns.inputValue(), "20");
        await conns.fill("2.5");
        await page.getByRole("button", { name: "Save" }).click();
        await errorOnScreen("A whole number, at least 1.");
        await conns.fill("5");
        assertEquals(await page.getByLabel("Conversations per connection").inputValue(), "1000");
        await page.getByRole("button", { name: "Save" }).click();
        await assertOnScreen(page, page.getByText("Saved."));
        const kept = await page.evaluate(async () => {
          const s = await (await fetch("/api/settings")).json();
          return [s.max_file_bytes_per_user, s.max_connections_per_user];
        });
        assertEquals(kept, [250_000_000, 5]);

        await page.goto(server.url + "/chat/search?q=hello");
        await assertOnScreen(page, page.getByText("Messages older than 84 days are deleted."));
        assertEquals(errors, []);
      } finally {
        await context.close();
        await server.close();
      }
    });

    await t.step("a failed save shows the error where the user is looking", async () => {
      const server = await startServer();
      // Shorter than the form, which is scrolled to its end to reach Save.
      const context = await browser.newContext({ viewport: { width: 1280, height: 600 } });
      const { page, errors } = await newPage(context);
      try {
        await registerAdmin(page, server.url);
        await page.goto(server.url + "/settings/server");
        const body = page.locator(".page-body");
        // The form comes with the settings it loads: measured before that, the page is short.
        await page.getByLabel("Video service").waitFor();
        assert(
          await body.evaluate((el) => el.scrollHeight > el.clientHeight + 200),
          "the form is longer than the screen",
        );
        // Two fields the server refuses; the first on the page gets the focus.
        await page.getByLabel("Organization URL").fill("not a link");
        await page.getByLabel("Video service").fill("nor this");
        await body.evaluate((el) => el.scrollTop = el.scrollHeight);
        const url = page.getByLabel("Organization URL");
        assert(!await inView(url), "the field is off screen before the save");
        const save = page.getByRole("button", { name: "Save" });
        await save.click();
        await focusedInView(page, "Organization URL");
        await assertOnScreen(page, page.getByRole("alert").filter({ hasText: "Organization URL" }));
        assertEquals(await page.getByLabel("Video service").getAttribute("aria-invalid"), "true");

        // An error tied to no field (the server gone): the form's errors come into view,
        // announced as an alert, after Enter in a field at the top, far above them.
        await url.fill("");
        await page.getByLabel("Video service").fill("");
        await body.evaluate((el) => el.scrollTop = 0);
        assert(!await inView(save), "the end of the form is off screen before the save");
        await server.stop();
        await page.getByLabel("Organization name").press("Enter");
        const general = page.locator(".form-error[role=alert]");
        await assertOnScreen(page, general, 5_000);
        assertEquals(
          errors.filter((e) => !/ERR_CONNECTION_REFUSED/.test(e)),
          [],
          "nothing but the refused loads",
        );
      } finally {
        await context.close();
        await server.close();
      }
    });

    await t.step("set by the operator: read-only for admins, told in history", async () => {
      const server = await startServer({ env: { PARLEY_MESSAGE_RETENTION: "30d" } });
      const irc = await startIrcServer();
      const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
      const { page, errors } = await newPage(context);
      try {
        await registerAndConnect(page, server.url, irc.port, {
          email: "admin@example.com",
          password: "a long enough password",
          channel: "#kept",
        });
        // A line typed before the page's socket is open is refused ("Not connected to Parley").
        await goLive(page, server.url + "/chat/irc-localhost/%23kept");
        await sendLine(page, "a line to have history");
        await page.locator(".line", { hasText: "a line to have history" }).waitFor();
        // The start of a conversation's history is where retention cut it, and says so.
        await page.reload();
        const start = page.locator(".history-start");
        await assertOnScreen(page, start);
        assertEquals(await start.textContent(), "Messages older than 30 days are deleted.");

        await page.goto(server.url + "/settings/server");
        const field = page.getByLabel("Message retention");
        await assertOnScreen(page, field);
        assertEquals(await field.inputValue(), "30d");
        assert(await field.getAttribute("readonly") !== null, "read-only");
        await assertOnScreen(page, page.getByText("Set by the operator"));
        // Saving the other settings still works.
        await page.getByRole("button", { name: "Save" }).click();
        await assertOnScreen(page, page.getByText("Saved."));

        await page.goto(server.url + "/chat/search?q=hello");
        await assertOnScreen(page, page.getByText("Messages older than 30 days are deleted."));
        assertEquals(errors, []);
      } finally {
        await context.close();
        await server.close();
        await irc.close();
      }
    });
  } finally {
    await browser.close();
  }
});
