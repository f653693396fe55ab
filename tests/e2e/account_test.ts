// deno-lint-ignore-file no-explicit-any -- request bodies are read field by field
/**
 * Account screens in real Chromium against the real
 * daemon: a fresh install opens on registration; the service worker registers (the page's CSP
 * allows it); the notification, sound and away settings are on screen; the sessions list signs
 * out another browser; a password change right after logging in needs no current password, and a
 * session an invite link opened is asked for it in a dialog. Headless Chromium reaches
 * no push service, so push delivery itself is proven in tests/integration/push_test.ts.
 */
import { assertEquals, assertStringIncludes } from "../support/assert.ts";
import { startServer } from "../support/server.ts";
import { ApiClient } from "../support/api.ts";
import {
  assertOnScreen,
  launchBrowser,
  newPage,
  type Page,
  screenshot,
} from "../support/browser.ts";

const PASSWORD = "a long enough password";
const KIM = "kim's long password";

Deno.test("account: fresh install, service worker, notification settings, sessions", async (t) => {
  const server = await startServer();
  const browser = await launchBrowser();
  const desk = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const phone = await browser.newContext({
    viewport: { width: 390, height: 844 },
    userAgent:
      "Mozilla/5.0 (Linux; Android 14) AppleWebKit/537.36 Chrome/130.0 Mobile Safari/537.36",
    // The phone is this Chromium with another user agent, which its service worker's requests do
    // not carry: one fetching sw.js with the phone's cookie would record a desktop browser for it.
    serviceWorkers: "block",
  });
  const { page, errors } = await newPage(desk);
  // Open until its session is signed out: a page closed while its requests are still going out
  // sends the last of them without its context's user agent (the override goes with the page),
  // which would record a desktop browser for the phone's session.
  let phonePage: Page | undefined;
  try {
    await t.step("a fresh install opens on the registration form", async () => {
      await page.goto(server.url + "/");
      await page.waitForURL((u) => u.pathname === "/register");
      await assertOnScreen(page, page.getByRole("heading", { name: "Create an account" }));
      await page.getByLabel("Email").fill("root@example.com");
      await page.getByLabel("Password", { exact: true }).fill(PASSWORD);
      await page.getByRole("button", { name: "Create account" }).click();
      await page.waitForURL((u) =>
        u.pathname.startsWith("/settings") || u.pathname.startsWith("/chat")
      );
    });

    await t.step("once registered, the install is no longer fresh: login comes first", async () => {
      const other = phonePage = await phone.newPage();
      await other.goto(server.url + "/");
      await other.waitForURL((u) => u.pathname === "/login");
      await assertOnScreen(other, other.getByRole("heading", { name: "Log in" }));
      await other.getByLabel("Email").fill("root@example.com");
      await other.getByLabel("Password", { exact: true }).fill(PASSWORD);
      await other.getByRole("button", { name: "Log in" }).click();
      await other.waitForURL((u) => !u.pathname.startsWith("/login"));
    });

    await t.step("the service worker registers for the whole app", async () => {
      const scope = await page.evaluate(async () => {
        // ready never settles when registration failed: give up after a while.
        const reg = await Promise.race([
          navigator.serviceWorker.ready,
          new Promise<undefined>((r) => setTimeout(r, 15_000)),
        ]);
        return { scope: reg?.scope ?? "none", script: reg?.active?.scriptURL ?? "" };
      });
      assertEquals(scope.scope, server.url + "/");
      assertEquals(scope.script, server.url + "/sw.js");
    });

    await t.step("notification, sound and away settings are on screen", async () => {
      await page.goto(server.url + "/settings/account");
      await assertOnScreen(page, page.getByRole("heading", { name: "Account", level: 1 }));
      for (const label of ["Enable notifications", "Sound on mentions"]) {
        const box = page.getByLabel(label, { exact: true });
        await box.scrollIntoViewIfNeeded();
        await assertOnScreen(page, box);
      }
      const away = page.getByLabel(
        "Away on IRC while no Parley page is in view and no IRC client is attached",
      );
      await away.scrollIntoViewIfNeeded();
      await assertOnScreen(page, away);
      await away.check();
      await page.reload();
      // The setting comes from the server after the page shows.
      await page.waitForFunction(() =>
        (document.querySelector('input[name="auto_away"]') as HTMLInputElement | null)?.checked
      );
      await page.getByLabel("Sound on mentions").check();
      assertEquals(await page.evaluate(() => localStorage.getItem("parley.sound")), "on");
    });

    await t.step("the sessions list shows both browsers and signs the phone out", async () => {
      const list = page.getByRole("list", { name: "Sessions" });
      await list.scrollIntoViewIfNeeded();
      await assertOnScreen(page, list);
      const items = list.getByRole("listitem");
      assertEquals(await items.count(), 2);
      const mine = items.filter({ hasText: "This browser" });
      assertEquals(await mine.count(), 1);
      // "Chrome, Linux · This browser": the browser's name and the mark apart.
      assertStringIncludes(await mine.locator("strong").innerText(), " · This browser");
      const other = items.filter({ hasText: "Android" });
      assertStringIncludes(await other.innerText(), "Chrome, Android");
      await page.getByRole("heading", { name: "Sessions" }).scrollIntoViewIfNeeded();
      await screenshot(page, "account-sessions");
      await other.getByRole("button", { name: "Sign out" }).click();
      await page.waitForFunction(() =>
        document.querySelectorAll('[aria-label="Sessions"] li').length === 1
      );
      await phonePage!.goto(server.url + "/chat");
      await phonePage!.waitForURL((u) => u.pathname === "/login");
      await phonePage!.close();
    });

    await t.step("right after logging in, a new password needs no current one", async () => {
      await page.getByLabel("New password").fill("another long password");
      const [req, res] = await Promise.all([
        page.waitForRequest((r) => r.method() === "POST" && r.url().includes("/api/user/")),
        page.waitForResponse((r) =>
          r.request().method() === "POST" && r.url().includes("/api/user/")
        ),
        page.getByRole("button", { name: "Save" }).click(),
      ]);
      const body: any = req.postDataJSON();
      assertEquals(body.password, "another long password");
      assertEquals(body.current_password, undefined);
      assertEquals(res.status(), 200);
      assertEquals(await page.getByRole("dialog").count(), 0);
    });

    await t.step("a session not opened by the password: a dialog asks for it", async () => {
      const admin = new ApiClient(server.url);
      await admin.login("root@example.com", "another long password");
      const invite = await admin.post("/api/user/kim@example.com/invite");
      const { page: kim, errors: kimErrors } = await newPage(desk);
      // Registering through an invite link opens the session with the link, not a password.
      await kim.goto(invite.body.url);
      await kim.getByLabel("Password", { exact: true }).fill(KIM);
      await kim.getByRole("button", { name: "Save password" }).click();
      await kim.waitForURL((u) => !u.pathname.startsWith("/register"));
      await kim.goto(server.url + "/settings/account");
      await kim.getByLabel("New password").fill("kim's newer password");
      await kim.getByRole("button", { name: "Save" }).click();
      const dialog = kim.getByRole("dialog", { name: "Confirm your password" });
      await assertOnScreen(kim, dialog);
      const field = dialog.getByLabel("Current password");
      await assertOnScreen(kim, field);
      await screenshot(kim, "account-current-password");
      // A wrong one is said in the dialog, which stays.
      await field.fill("not my password");
      await dialog.getByRole("button", { name: "Set the new password" }).click();
      await assertOnScreen(kim, dialog.getByText("The current password is wrong."));
      await field.fill(KIM);
      const [res] = await Promise.all([
        kim.waitForResponse((r) =>
          r.request().method() === "POST" && r.url().includes("/api/user/kim")
        ),
        dialog.getByRole("button", { name: "Set the new password" }).click(),
      ]);
      assertEquals(res.status(), 200);
      assertEquals(res.request().postDataJSON().current_password, KIM);
      await dialog.waitFor({ state: "detached" });
      await kim.getByText("Saved").first().waitFor();
      // Every old session ended, this page's socket's with them: the page goes on in the session
      // the new password opened, over a new socket, and is not sent to the login.
      await kim.locator(".socket.open").waitFor();
      await assertOnScreen(kim, kim.getByLabel("New password"));
      assertEquals(new URL(kim.url()).pathname, "/settings/account");
      await new ApiClient(server.url).login("kim@example.com", "kim's newer password");
      assertEquals(kimErrors.filter((e) => !e.includes("400")), []);
    });

    assertEquals(errors, []);
  } finally {
    await browser.close();
    await server.close();
  }
});
