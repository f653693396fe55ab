/**
 * The message list follows the newest line: a conversation opened while lines arrive (its first
 * page answered only after more than a screen of them came live) stays at its newest line, and a
 * nick menu's WHOIS answer then arrives in view. Real Chromium, the real daemon, a real ngircd.
 */
import { assertEquals } from "../support/assert.ts";
import { startServer } from "../support/server.ts";
import { startIrcServer } from "../support/ngircd.ts";
import type { Route } from "playwright-core";
import { assertOnScreen, launchBrowser } from "../support/browser.ts";
import {
  deskPage,
  IrcPeople,
  lineWith,
  openConversation,
  registerAndConnect,
  sendLine,
} from "../support/chat_page.ts";

/** Lines bob says while erin's first page of #follow is held: more than the window shows. */
const LIVE = 40;

Deno.test("web client: the message list follows the newest line", async (t) => {
  const irc = await startIrcServer();
  const server = await startServer({ env: { PARLEY_TEST_FAST_IRC: "1" } });
  const browser = await launchBrowser();
  const { context, page, errors } = await deskPage(browser);
  const people = new IrcPeople(irc.port);
  try {
    const bob = await people.add("bob", "#follow");

    await t.step("set up: erin in #follow and #side, history in #follow", async () => {
      await registerAndConnect(page, server.url, irc.port, {
        email: "erin.f@example.com",
        password: "erin's long password",
        nick: "erin",
        channel: "#follow",
      });
      await bob.waitForMember("#follow", "erin");
      await sendLine(page, "/join #side");
      await page.waitForURL("**/chat/irc-localhost/%23side");
      await bob.waitForMember("#side", "erin");
      for (let i = 1; i <= 20; i++) await bob.say("#follow", `earlier ${i}`);
      const badge = page.locator(".sidebar .conv", { hasText: "#follow" }).locator(".badge");
      await badge.waitFor();
    });

    await t.step(
      "opened while lines arrive before its first page, it stays at the newest line",
      async () => {
        // The first page of #follow waits until the lines said meanwhile are shown live, as on
        // a slow server: it then comes in front of them, with the "Loading…" line going away.
        let release!: () => void;
        const held = new Promise<void>((r) => (release = r));
        let asked = false;
        const page1 = async (route: Route) => {
          asked = true;
          await held;
          await route.continue();
        };
        await page.route("**/api/connection/*/conversation/%23follow/messages*", page1);
        await openConversation(page, "#follow");
        for (let i = 1; i <= LIVE; i++) await bob.say("#follow", `live ${i}`);
        await lineWith(page, `live ${LIVE}`).waitFor();
        assertEquals(asked, true, "the page was asked for");
        assertEquals(await page.locator(".messages .loading").count(), 1, "still loading");
        release();
        await page.locator(".messages .loading").waitFor({ state: "detached" });
        await page.unroute("**/api/connection/*/conversation/%23follow/messages*", page1);
        await lineWith(page, "earlier 20").waitFor();
        await assertOnScreen(page, lineWith(page, `live ${LIVE}`));

        // The answer to the nick menu's "Who is this?" comes in view, not below the window.
        const panel = page.getByRole("complementary", { name: "Members" });
        await panel.getByRole("button", { name: "bob", exact: true }).click();
        const menu = page.getByRole("menu", { name: "Actions for bob" });
        await menu.getByRole("menuitem", { name: "Who is this?" }).click();
        await assertOnScreen(page, page.getByRole("table", { name: "Whois bob" }));
        // And a line after it too.
        await bob.say("#follow", "after the whois");
        await assertOnScreen(page, lineWith(page, "after the whois"));
      },
    );

    await t.step("no errors in the browser console", () => {
      assertEquals(errors, []);
    });
  } finally {
    await people.close();
    await context.close();
    await browser.close();
    await server.close();
    await irc.close();
  }
});
