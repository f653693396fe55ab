/**
 * Parley under a path of another host, behind a reverse proxy that takes the path off (a small
 * real proxy on loopback, tests/support/path_proxy.ts): the whole client works there, in real
 * Chromium against the real daemon and a real ngircd, and the page asks for nothing outside its
 * path.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { startServer } from "../support/server.ts";
import { startIrcServer } from "../support/ngircd.ts";
import { startPathProxy } from "../support/path_proxy.ts";
import { assertOnScreen, launchBrowser } from "../support/browser.ts";
import {
  deskPage,
  goLive,
  IrcPeople,
  lineWith,
  registerAndConnect,
  sendLine,
} from "../support/chat_page.ts";

Deno.test("web client: under a path of another host, behind a proxy", async (t) => {
  const irc = await startIrcServer();
  // The proxy comes first: the base URL names it.
  let parley = "";
  const proxy = await startPathProxy("/parley", () => parley);
  const home = `${proxy.url}/parley`;
  const server = await startServer({
    env: {
      PARLEY_TEST_FAST_IRC: "1",
      PARLEY_BASE_URL: `${home}/`,
      PARLEY_REVERSE_PROXY: "1",
    },
  });
  parley = server.url;
  const browser = await launchBrowser();
  const { context, page, errors } = await deskPage(browser);
  const asked: string[] = [];
  page.on("request", (r) => asked.push(r.url()));
  const people = new IrcPeople(irc.port);
  try {
    await t.step("the path's root leads to the first account's form under the path", async () => {
      await page.goto(`${home}/`);
      await page.waitForURL(`${home}/register`);
      await assertOnScreen(page, page.getByRole("button", { name: "Create account" }));
    });

    const bob = await people.add("bob", "#base");
    await t.step("register, connect, and talk over the page's socket", async () => {
      await registerAndConnect(page, home, irc.port, {
        email: "erin.b@example.com",
        password: "erin's long password",
        nick: "erin",
        channel: "#base",
      });
      assert(page.url().startsWith(`${home}/chat/`), page.url());
      await bob.waitForMember("#base", "erin");
      await page.goto(`${home}/chat/irc-localhost/%23base`);
      await bob.say("#base", "hello under a path");
      await assertOnScreen(page, lineWith(page, "hello under a path"));
      await sendLine(page, "and back to you");
      await bob.waitFor((l) => / PRIVMSG #base :and back to you$/.test(l.raw));
    });

    await t.step("a deep link loads there, and links stay under the path", async () => {
      await goLive(page, `${home}/chat/irc-localhost/%23base`);
      await assertOnScreen(page, lineWith(page, "and back to you"));
      const account = page.getByRole("link", { name: "Account" });
      assertEquals(await account.getAttribute("href"), "/parley/settings/account");
      await account.click();
      await page.waitForURL(`${home}/settings/account`);
      await page.goBack();
      await page.waitForURL(`${home}/chat/irc-localhost/%23base`);
      await assertOnScreen(page, lineWith(page, "and back to you"));
    });

    await t.step("a line typed while the page's socket opens is sent once it is open", async () => {
      // The proxy holds the socket's handshake: the page is loaded, its socket still opening.
      proxy.holdSockets(true);
      try {
        await page.goto(`${home}/chat/irc-localhost/%23base`);
        await assertOnScreen(page, lineWith(page, "and back to you"));
        await sendLine(page, "typed while opening");
        await new Promise((r) => setTimeout(r, 500));
        assertEquals(await page.getByText("Not connected to Parley").count(), 0, "not refused");
      } finally {
        proxy.holdSockets(false);
      }
      await bob.waitFor((l) => / PRIVMSG #base :typed while opening$/.test(l.raw));
      await assertOnScreen(page, lineWith(page, "typed while opening"));
    });

    await t.step("logging out leads to the login page under the path", async () => {
      await page.getByRole("button", { name: "Log out" }).click();
      await page.waitForURL(`${home}/login`);
      await assertOnScreen(page, page.getByRole("heading", { name: "Log in" }));
    });

    await t.step("the service worker is Parley's, with the path as its scope", async () => {
      const own = await browser.newContext();
      try {
        const p = await own.newPage();
        await p.goto(`${home}/login`);
        const scope = await p.evaluate(() =>
          Promise.race([
            navigator.serviceWorker.ready.then((r) => r.scope),
            new Promise((r) => setTimeout(() => r("no worker within 10 s"), 10_000)),
          ])
        );
        assertEquals(scope, `${home}/`);
        assertEquals(proxy.outside, []);
      } finally {
        await own.close();
      }
    });

    await t.step("the page asked for nothing outside its path", () => {
      assertEquals(proxy.outside, []);
      const elsewhere = asked.filter((u) => !u.startsWith(`${home}/`) && !u.startsWith("data:"));
      assertEquals(elsewhere, []);
      assertEquals(errors, []);
    });
  } finally {
    await people.close();
    await context.close();
    await browser.close();
    await server.close();
    await proxy.close();
    await irc.stop();
  }
});
