/**
 * A page of another origin opens `/socket` in its visitor's browser (WebSockets ignore CORS) and
 * fails logins for the visitor's email from the visitor's own address. Those failures count
 * apart from the web's, so the visitor still logs in on the web; the page's own tries are
 * throttled. From Parley's own origin, failures count with the web's as before. Real Chromium,
 * the real daemon, the hostile page on another loopback origin.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { ApiClient } from "../support/api.ts";
import { startServer } from "../support/server.ts";
import { freePort } from "../support/ports.ts";
import { launchBrowser, newPage, type Page } from "../support/browser.ts";

const EMAIL = "victim@example.com";
const PASSWORD = "a long enough password";

/** One SASL PLAIN login over `/socket` from the page; the answer line (903 or 904). */
function trySocketLogin(page: Page, url: string, user: string, password: string) {
  return page.evaluate(async ({ url, user, password }) => {
    const ws = new WebSocket(url, "text.ircv3.net");
    const lines: string[] = [];
    ws.onmessage = (e) => void lines.push(String(e.data));
    await new Promise((resolve, reject) => {
      ws.onopen = resolve;
      ws.onerror = reject;
    });
    const wait = async (test: (l: string) => boolean) => {
      for (let i = 0; i < 300; i++) {
        const hit = lines.find(test);
        if (hit !== undefined) return hit;
        await new Promise((r) => setTimeout(r, 50));
      }
      throw new Error(`no answer; got: ${lines.join(" | ")}`);
    };
    for (const l of ["CAP LS 302", "NICK n", "USER u 0 * :x", "CAP REQ :sasl"]) ws.send(l);
    await wait((l) => l.includes(" ACK "));
    ws.send("AUTHENTICATE PLAIN");
    await wait((l) => /(^|\s)AUTHENTICATE /.test(l));
    ws.send(`AUTHENTICATE ${btoa(`\0${user}\0${password}`)}`);
    const answer = await wait((l) => / 90[34] /.test(l));
    ws.close();
    return answer;
  }, { url, user, password });
}

/**
 * Fails logins from the page until it is throttled: 3 wrong passwords (fewer than the free ones)
 * for each of `emails` in turn, so what stops it is the address's budget over all emails, which
 * then holds for minutes. Returns how many failed.
 */
async function spendBudget(page: Page, url: string, emails: string[]): Promise<number> {
  for (let i = 0; i < emails.length * 3; i++) {
    const answer = await trySocketLogin(page, url, emails[Math.floor(i / 3)], "wrong guess");
    if (answer.includes("Too many")) return i;
    assert(answer.includes(" 904 "), answer);
  }
  throw new Error("never throttled");
}

/** The victim's email first, then others the page makes up. */
const guesses = (prefix: string) => [
  EMAIL,
  ...Array.from({ length: 30 }, (_, i) => `${prefix}${i}@example.com`),
];

Deno.test("/socket: a page of another origin cannot spend its visitor's web login", async (t) => {
  const server = await startServer({
    env: { PARLEY_IRC_LISTEN: `irc://127.0.0.1:${freePort()}` },
  });
  // The hostile site: another origin on loopback (another port), an empty page.
  const hostile = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    () =>
      new Response("<!doctype html><title>Cute cats</title>", {
        headers: { "content-type": "text/html" },
      }),
  );
  const browser = await launchBrowser();
  const context = await browser.newContext();
  const { page, errors } = await newPage(context);
  const socketUrl = server.url.replace(/^http/, "ws") + "/socket";
  try {
    await new ApiClient(server.url).register(EMAIL, PASSWORD);

    await t.step(
      "the other origin's failures are throttled, but apart from the web's",
      async () => {
        await page.goto(`http://127.0.0.1:${hostile.addr.port}/`);
        assert(await spendBudget(page, socketUrl, guesses("made-up")) > 5);
        // Counted, not ignored: the page's next try is refused even with the right password.
        const right = await trySocketLogin(page, socketUrl, EMAIL, PASSWORD);
        assert(right.includes("Too many"), right);
        // The visitor logs in on the web from the same browser and address.
        await page.goto(server.url + "/login");
        await page.getByLabel("Email").fill(EMAIL);
        await page.getByLabel("Password", { exact: true }).fill(PASSWORD);
        await page.getByRole("button", { name: "Log in" }).click();
        await page.waitForURL((u) => u.pathname !== "/login");
        const login = await new ApiClient(server.url).post("/api/user/login", {
          email: EMAIL,
          password: PASSWORD,
        });
        assertEquals(login.status, 200);
      },
    );

    await t.step("from Parley's own origin, failures count with the web's", async () => {
      assert(new URL(page.url()).origin === server.url);
      assert(await spendBudget(page, socketUrl, guesses("own")) > 5);
      const web = await new ApiClient(server.url).post("/api/user/login", {
        email: EMAIL,
        password: PASSWORD,
      });
      assertEquals(web.status, 429);
    });
    assertEquals(errors, []);
  } finally {
    await context.close();
    await browser.close();
    await hostile.shutdown();
    await server.close();
  }
});
