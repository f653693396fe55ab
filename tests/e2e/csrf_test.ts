/**
 * Login CSRF in real Chromium against the real daemon: a page of another origin posts a
 * `text/plain` form to /api/user/login whose body reads as the attacker's credentials in JSON.
 * The victim, who has no session (so no cookie goes with the post), must not end up logged into
 * the attacker's account: the answer would set its session cookie in the victim's browser, and
 * what the victim then types would go to the attacker's account.
 */
import { assertEquals } from "../support/assert.ts";
import { startServer } from "../support/server.ts";
import { ApiClient } from "../support/api.ts";
import { serveAttackPage } from "../support/hostile_pages.ts";
import { assertOnScreen, launchBrowser } from "../support/browser.ts";

const EMAIL = "attacker@example.com";
// A text/plain form sends `name=value`: the `=` lands at the end of the password.
const PASSWORD = "the attacker password=";

/** The hostile page: submits itself at once, as the victim opens it. */
function attackPage(target: string): string {
  const name = `{"email":"${EMAIL}","password":"${PASSWORD.slice(0, -1)}`;
  const attr = (s: string) => s.replaceAll("&", "&amp;").replaceAll('"', "&quot;");
  return `<!DOCTYPE html><html><body>
<form method="POST" enctype="text/plain" action="${target}/api/user/login">
<input type="hidden" name="${attr(name)}" value="${attr('"}')}">
</form>
<script>document.forms[0].submit()</script>
</body></html>`;
}

Deno.test("a page on another site cannot log the victim into the attacker's account", async (t) => {
  const server = await startServer();
  const attack = serveAttackPage(attackPage(server.url));
  const browser = await launchBrowser();
  try {
    const attacker = new ApiClient(server.url);
    const reg = await attacker.post("/api/user/register", { email: EMAIL, password: PASSWORD });
    assertEquals(reg.status, 200, "the attacker has an account");

    // 127.0.0.1 on another port is another origin of the same site (Sec-Fetch-Site: same-site);
    // `localhost` is another site (cross-site).
    const port = new URL(attack.url).port;
    for (const from of [attack.url, `http://localhost:${port}/`]) {
      await t.step(`the form posted from ${from}`, async () => {
        const context = await browser.newContext({ serviceWorkers: "block" });
        try {
          const page = await context.newPage();
          const answer = page.waitForResponse((r) => r.url().endsWith("/api/user/login"));
          await page.goto(from);
          const res = await answer;
          assertEquals(res.request().method(), "POST", "the form was posted");
          const cookies = await context.cookies(server.url);
          assertEquals(cookies.filter((c) => c.name === "parley"), [], "no session cookie");

          // The victim opens Parley afterwards: the login form, not the attacker's account.
          await page.goto(server.url + "/");
          const status = await page.evaluate(async () => (await fetch("/api/user")).status);
          assertEquals(status, 401, "no session in the victim's browser");
          await page.waitForURL((u) => u.pathname === "/login");
          await assertOnScreen(page, page.getByRole("heading", { name: "Log in" }));
          assertEquals(res.status(), 403, "refused as started by another origin");
        } finally {
          await context.close();
        }
      });
    }
  } finally {
    await browser.close();
    await attack.close();
    await server.close();
  }
});
