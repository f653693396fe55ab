/**
 * Login by the reverse proxy's header, in real Chromium behind a small real proxy on loopback that
 * names the person it has authenticated in `X-Authenticated-User` (as Authelia, authentik or
 * oauth2-proxy do): the page opens on the chat without a login form, its socket opens, and when
 * the proxy names someone else the page is theirs; a suspended person's page says so; logging out
 * leads to the proxy's logout.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { startServer } from "../support/server.ts";
import { startPathProxy } from "../support/path_proxy.ts";
import { assertOnScreen, launchBrowser } from "../support/browser.ts";
import { deskPage, goLive } from "../support/chat_page.ts";

const HEADER = "X-Authenticated-User";

Deno.test("web client: logged in by the proxy's header", async (t) => {
  let parley = "";
  const proxy = await startPathProxy("/parley", () => parley);
  const home = `${proxy.url}/parley`;
  const server = await startServer({
    env: {
      PARLEY_BASE_URL: `${home}/`,
      PARLEY_REVERSE_PROXY: "1",
      PARLEY_AUTH_HEADER: HEADER,
      PARLEY_ADMIN: "ann@example.com",
      // Outside the proxy's path: the small proxy answers it 404, and notes it was asked.
      PARLEY_AUTH_LOGOUT_URL: `${proxy.url}/signed-out`,
    },
  });
  parley = server.url;
  const browser = await launchBrowser();
  const { page, errors } = await deskPage(browser);
  try {
    await t.step("the admin the proxy names opens on the app, not on a form", async () => {
      proxy.setHeader(HEADER, "ann@example.com");
      await page.goto(`${home}/`);
      await page.waitForURL((u) => /^\/parley\/(chat|settings)/.test(u.pathname));
      await goLive(page, `${home}/settings/account`);
      await assertOnScreen(page, page.getByText("ann@example.com").first());
      assertEquals(await page.getByRole("button", { name: "Log in" }).count(), 0);
      await assertOnScreen(page, page.getByRole("link", { name: "Administration" }));
    });

    await t.step("the proxy names another person: the page is theirs", async () => {
      proxy.setHeader(HEADER, "bo@example.com");
      await goLive(page, `${home}/settings/account`);
      await assertOnScreen(page, page.getByText("bo@example.com").first());
      assertEquals(await page.getByText("ann@example.com").count(), 0);
      // Registered without a role: the admin's pages are not offered.
      assertEquals(await page.getByRole("link", { name: "Administration" }).count(), 0);
    });

    await t.step("a suspended person is told so, not asked for a password", async () => {
      /** Sets bo's suspension as the admin, by a script's request through the proxy. */
      const suspend = async (suspended: boolean) => {
        proxy.setHeader(HEADER, "ann@example.com");
        const res = await fetch(`${home}/api/user/bo%40example.com`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ suspended }),
        });
        assertEquals(res.status, 200, await res.text());
        proxy.setHeader(HEADER, "bo@example.com");
      };
      await suspend(true);
      await page.goto(`${home}/`);
      await assertOnScreen(page, page.getByRole("alert").getByText("This account is suspended."));
      await suspend(false);
      await goLive(page, `${home}/settings/account`);
      await assertOnScreen(page, page.getByText("bo@example.com").first());
      assertEquals(await page.getByText("This account is suspended.").count(), 0);
    });

    await t.step("logging out leads to the proxy's own logout", async () => {
      await page.getByRole("button", { name: "Log out" }).click();
      await page.waitForURL(`${proxy.url}/signed-out`);
      // Asked of the proxy itself (the browser may ask for its icon there too).
      assert(proxy.outside.includes("/signed-out"), proxy.outside.join(" "));
    });

    // The proxy's logout page is its 404 (a real proxy's would be its own page); the suspended
    // person's page was refused its user.
    assertEquals(errors.filter((e) => !/ 404 |status of 403 .*\/api\/user\?/.test(e)), []);
  } finally {
    await browser.close();
    await proxy.close();
    await server.close();
  }
});
