/**
 * The page tells the server whether it is looked at, for automatic away (static/app/presence.ts),
 * in real Chromium against the real daemon: out of view for ten minutes, or in view and untouched
 * for thirty, it sends `{"method": "presence", "here": false}` on its socket (and on a socket
 * opened meanwhile), and `here: true` as soon as it is in view or touched again; for less,
 * nothing. The page's clock
 * is Playwright's, moved on by hand; the page is put out of view as the browser tells it
 * (`visibilityState` and its event), since headless Chromium shows every page. What the server
 * does with it: events_presence_test.ts.
 */
import { assertEquals } from "../support/assert.ts";
import { startServer } from "../support/server.ts";
import { startIrcServer } from "../support/ngircd.ts";
import { launchBrowser } from "../support/browser.ts";
import { deskPage, IrcPeople, registerAndConnect } from "../support/chat_page.ts";
import { poll } from "../support/poll.ts";
import type { Page } from "../support/browser.ts";

/** Tells the page it is in view or not, as the browser does when a tab is left or comes back. */
async function setVisible(page: Page, visible: boolean): Promise<void> {
  await page.evaluate((v) => {
    Object.defineProperty(document, "visibilityState", {
      configurable: true,
      get: () => v ? "visible" : "hidden",
    });
    document.dispatchEvent(new Event("visibilitychange"));
  }, visible);
}

Deno.test("web client: a page out of view says so, for automatic away", async (t) => {
  const irc = await startIrcServer();
  const server = await startServer({ env: { PARLEY_TEST_FAST_IRC: "1" } });
  const browser = await launchBrowser();
  const { context, page, errors } = await deskPage(browser);
  const people = new IrcPeople(irc.port);
  /**
   * What the page said about itself, per socket in the order they opened. Moving the clock on by
   * minutes without pongs makes the page give its socket up and open another (as after a lost
   * network), and a new socket starts as looked at: what counts is what the newest one was told.
   */
  const sockets: boolean[][] = [];
  page.on("websocket", (ws) => {
    const said: boolean[] = [];
    sockets.push(said);
    ws.on("framesent", (f) => {
      const frame = typeof f.payload === "string" ? JSON.parse(f.payload) : {};
      if (frame.method === "presence") said.push(frame.here);
    });
  });
  /** Whether the server counts the page as looked at now: its newest socket's last word. */
  const here = () => sockets.at(-1)?.at(-1) ?? true;
  const everSaid = () => sockets.flat();
  try {
    await page.clock.install();
    const chunk = page.waitForResponse((r) => /\/after_load-[^/]*\.js$/.test(r.url()));
    const bob = await people.add("bob");
    await bob.join("#room");
    await registerAndConnect(page, server.url, irc.port, {
      email: "erin.k@example.com",
      password: "erin's long password",
      nick: "erin",
      channel: "#room",
    });
    await bob.waitForMember("#room", "erin");
    await chunk; // what watches the page comes a second after login

    await t.step("out of view for less than ten minutes: nothing is said", async () => {
      await setVisible(page, false);
      await page.clock.fastForward("09:00");
      await setVisible(page, true);
      // Had it said anything, the next step would see it first.
      assertEquals(everSaid(), []);
    });

    await t.step("ten minutes out of view: here false; back in view: here again", async () => {
      await setVisible(page, false);
      await page.clock.fastForward("10:01");
      await poll("here: false said", () => !here());
      assertEquals(everSaid()[0], false);
      await setVisible(page, true);
      await poll("here: true said, or a new socket", () => here());
    });

    await t.step("in view, untouched for thirty minutes: here false; touched: here", async () => {
      const said = everSaid().length;
      await page.clock.fastForward("20:00");
      // A pointer move counts as the user there: thirty more minutes from it.
      await page.mouse.move(200, 200);
      await page.mouse.move(210, 220);
      await page.clock.fastForward("29:00");
      assertEquals(everSaid().slice(said), [], "said not there while touched");
      await page.clock.fastForward("01:01");
      await poll("here: false said", () => !here());
      await page.keyboard.press("Shift");
      await poll("here: true said, or a new socket", () => here());
    });
    assertEquals(errors, []);
  } finally {
    await context.close();
    await browser.close();
    await people.close();
    await server.close();
    await irc.close();
  }
});
