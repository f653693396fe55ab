/**
 * The user's display choices follow them to every device, in real Chromium against the real
 * daemon and a real ngircd, with two browsers of the same user: a setting changed on one shows on
 * the other at once and after a reload with nothing kept in that browser; the nick completion
 * suffix is one of them; a pinned conversation is first on both; joins hidden on a network but
 * shown in one of its channels; the reading position kept when switching away and back.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { startServer } from "../support/server.ts";
import { startIrcServer } from "../support/ngircd.ts";
import { RawIrcClient } from "../support/irc_client.ts";
import { assertOnScreen, launchBrowser, newPage, type Page } from "../support/browser.ts";
import {
  composer,
  goLive,
  lineWith,
  openConversation,
  registerAndConnect,
  sendLine,
} from "../support/chat_page.ts";

const EMAIL = "gil@example.com";
const PASSWORD = "gil's long password";

Deno.test("settings: every device of the user shows the same", async (t) => {
  const irc = await startIrcServer();
  const server = await startServer({ env: { PARLEY_TEST_FAST_IRC: "1" } });
  const browser = await launchBrowser();
  const context = (width: number, height: number) =>
    browser.newContext({ viewport: { width, height }, serviceWorkers: "block" });
  // A desktop and a phone: on the phone the sidebar is a drawer.
  const desk = await context(1280, 800);
  const phoneCtx = await context(390, 844);
  const { page, errors } = await newPage(desk);
  const bob = await RawIrcClient.connect(irc.port, "bob");
  let carol: RawIrcClient | undefined;
  const theme = (p: Page) => p.evaluate(() => document.documentElement.dataset.theme ?? "");
  const firstConv = (p: Page) => p.locator(".sidebar .conn li .conv").first();
  /** Loads `url` and waits for the socket (its mark is in the drawer, hidden on the phone). */
  const live = async (p: Page, url: string) => {
    await p.goto(url);
    await p.locator(".sidebar .socket.open").waitFor({ state: "attached" });
  };
  /** Opens the drawer where the sidebar is one (the phone). */
  const showSidebar = async (p: Page) => {
    const button = p.getByRole("button", { name: "Open menu" });
    if (!(await button.isVisible())) return;
    await button.click();
    await p.waitForFunction(() =>
      document.querySelector(".sidebar.open")?.getBoundingClientRect().left === 0
    );
  };
  try {
    for (const c of ["#tea", "#news"]) await bob.join(c);

    await t.step("set up: gil joins two channels, then logs in on a second device", async () => {
      await registerAndConnect(page, server.url, irc.port, {
        email: EMAIL,
        password: PASSWORD,
        nick: "gil",
        channel: "#tea",
      });
      await bob.waitForMember("#tea", "gil");
      await sendLine(page, "/join #news");
      await page.waitForURL(`**/chat/irc-localhost/${encodeURIComponent("#news")}`);
      await bob.waitForMember("#news", "gil");
    });
    const { page: two } = await newPage(phoneCtx);
    await two.goto(server.url + "/login");
    await two.getByLabel("Email").fill(EMAIL);
    await two.getByLabel("Password", { exact: true }).fill(PASSWORD);
    await two.getByRole("button", { name: "Log in" }).click();
    await two.waitForURL((u) => u.pathname.startsWith("/chat"));
    await live(two, server.url + "/chat/irc-localhost/%23tea");

    await t.step("17: a setting changed on one device applies live on the other", async () => {
      await goLive(page, server.url + "/settings/account");
      assertEquals(await theme(two), "", "the system's theme to begin with");
      await page.getByLabel("Theme").selectOption("dark");
      await page.getByRole("checkbox", { name: "Compact layout" }).check();
      const suffix = page.getByLabel("After a completed nick");
      await assertOnScreen(page, suffix);
      const saved = page.waitForResponse((r) =>
        r.url().endsWith("/api/client-settings") && r.request().method() === "POST" &&
        r.request().postData()?.includes("nick_suffix") === true
      );
      await suffix.fill(", ");
      await suffix.press("Enter");
      await suffix.blur();
      await saved;
      // The other device, untouched, follows.
      await two.waitForFunction(() => document.documentElement.dataset.theme === "dark");
      await assertOnScreen(two, two.locator(".messages.compact"));
      const bg = await two.evaluate(() => getComputedStyle(document.body).backgroundColor);
      const [r, g, b] = bg.match(/\d+/g)!.map(Number);
      assert(r + g + b < 150, `a dark page on the other device (${bg})`);
    });

    await t.step("17: the nick completion suffix is the chosen one", async () => {
      // Completion knows the channel's members once they have come.
      await two.getByRole("button", { name: "2 members" }).waitFor();
      await composer(two).fill("bo");
      await composer(two).press("Tab");
      await two.waitForFunction(
        () => (document.querySelector("#composer-input") as HTMLTextAreaElement).value !== "bo",
      );
      assertEquals(await composer(two).inputValue(), "bob, ");
      await composer(two).fill("");
    });

    await t.step(
      "Tab before completion's code has come: the focus stays, the word completes",
      async () => {
        // The chunk that completes is fetched after the first paint: held back here, as a slow
        // link holds it, while the user types a nick's start and presses Tab.
        const { page: three } = await newPage(desk);
        let release = () => {};
        const held = new Promise<void>((r) => (release = r));
        await three.route("**/after_load-*.js", async (route) => {
          await held;
          await route.continue();
        });
        await live(three, server.url + "/chat/irc-localhost/%23tea");
        await three.getByRole("button", { name: "2 members" }).waitFor();
        await composer(three).fill("bo");
        await composer(three).press("Tab");
        assertEquals(await composer(three).inputValue(), "bo", "not completed yet");
        assertEquals(
          await three.evaluate(() => document.activeElement?.id),
          "composer-input",
          "the focus stayed in the box",
        );
        release();
        await three.waitForFunction(() =>
          (document.querySelector("#composer-input") as HTMLTextAreaElement).value === "bob, "
        );
        await three.close();
      },
    );

    await t.step("17: after a reload with nothing kept in the browser, the same", async () => {
      await two.evaluate(() => localStorage.clear());
      await live(two, server.url + "/chat/irc-localhost/%23tea");
      await two.waitForFunction(() => document.documentElement.dataset.theme === "dark");
      await assertOnScreen(two, two.locator(".messages.compact"));
      await two.goto(server.url + "/settings/account");
      const compact = two.getByRole("checkbox", { name: "Compact layout" });
      await compact.scrollIntoViewIfNeeded();
      await assertOnScreen(two, compact);
      assert(await compact.isChecked(), "compact is on after the reload");
      assertEquals(await two.getByLabel("After a completed nick").inputValue(), ", ");
    });

    await t.step("19: a conversation pinned on one device is on top on both", async () => {
      await goLive(page, server.url + "/chat/irc-localhost/%23news");
      await live(two, server.url + "/chat/irc-localhost/%23news");
      // Alphabetical before pinning: #news first.
      await assertOnScreen(page, firstConv(page).filter({ hasText: "#news" }));
      await page.locator(".sidebar .conv", { hasText: "#tea" }).click({ button: "right" });
      const menu = page.getByRole("menu", { name: "Actions for #tea" });
      const pin = menu.getByRole("menuitem", { name: "Pin to the top" });
      await assertOnScreen(page, pin);
      await pin.click();
      for (const p of [page, two]) {
        await showSidebar(p);
        await assertOnScreen(p, firstConv(p).filter({ hasText: "#tea" }));
      }
      await page.reload();
      await assertOnScreen(page, firstConv(page).filter({ hasText: "#tea" }));
      // The keys step through the sidebar as it shows: from #news up to #tea above it.
      await page.keyboard.press("Alt+ArrowUp");
      await page.waitForURL(`**/chat/irc-localhost/${encodeURIComponent("#tea")}`);
    });

    await t.step("18: joins hidden on the network but shown in one channel", async () => {
      await goLive(page, server.url + "/settings/conversation/irc-localhost/%23tea");
      for (const [label, mode] of [["In this channel", "show"], ["On this network", "hide"]]) {
        const saved = page.waitForResponse((r) =>
          r.url().endsWith("/api/client-settings") && r.request().method() === "POST"
        );
        await page.getByLabel(label).selectOption(mode);
        await saved;
      }
      carol = await RawIrcClient.connect(irc.port, "carol");
      await carol.join("#news");
      await carol.join("#tea");
      await bob.say("#news", "after carol came");
      await bob.say("#tea", "after carol came here too");
      for (const p of [page, two]) {
        await live(p, server.url + "/chat/irc-localhost/%23tea");
        await assertOnScreen(p, lineWith(p, "carol joined"));
        await showSidebar(p);
        await openConversation(p, "#news");
        await assertOnScreen(p, lineWith(p, "after carol came"));
        assertEquals(
          await p.locator(".messages .line", { hasText: "carol joined" }).count(),
          0,
          "no join shown in #news",
        );
      }
    });

    await t.step("21: the reading position is kept when switching away and back", async () => {
      for (let i = 1; i <= 50; i++) await bob.say("#tea", `tea line ${i}`);
      await goLive(page, server.url + "/chat/irc-localhost/%23tea");
      await assertOnScreen(page, lineWith(page, "tea line 50"));
      await lineWith(page, "tea line 10").scrollIntoViewIfNeeded();
      await assertOnScreen(page, lineWith(page, "tea line 10"));
      assert(!(await onScreen(page, "tea line 50")), "the newest line is out of view");
      await openConversation(page, "#news");
      await assertOnScreen(page, lineWith(page, "after carol came"));
      await openConversation(page, "#tea");
      await assertOnScreen(page, lineWith(page, "tea line 10"));
      assert(!(await onScreen(page, "tea line 50")), "not put back at the newest line");
    });

    assertEquals(errors, []);
  } finally {
    await carol?.close().catch(() => {});
    await bob.close().catch(() => {});
    await browser.close();
    await server.close();
    await irc.close();
  }
});

/** Whether the newest line with `text` is inside the message list's visible part. */
function onScreen(page: Page, text: string): Promise<boolean> {
  return lineWith(page, text).evaluate((el) => {
    const list = el.closest(".messages")!.getBoundingClientRect();
    const r = el.getBoundingClientRect();
    return r.bottom > list.top && r.top < list.bottom;
  });
}
