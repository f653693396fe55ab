/**
 * A conversation's notification level and its draft, in real Chromium against the real daemon
 * and a real ngircd: a muted channel is dimmed and left out of the tab's title, chosen from the
 * sidebar's menu and shown in the conversation's settings; a half-typed line follows the user to
 * another browser, stays with its conversation, and is gone once sent.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { startServer } from "../support/server.ts";
import { startIrcServer } from "../support/ngircd.ts";
import { RawIrcClient } from "../support/irc_client.ts";
import { assertOnScreen, launchBrowser, newPage, type Page } from "../support/browser.ts";
import { openConversation, registerAndConnect, sendLine } from "../support/chat_page.ts";

const EMAIL = "fay@example.com";
const PASSWORD = "fay's long password";

Deno.test("conversations: notification levels and drafts", async (t) => {
  const irc = await startIrcServer();
  const server = await startServer({ env: { PARLEY_TEST_FAST_IRC: "1" } });
  const browser = await launchBrowser();
  const desk = await browser.newContext({
    viewport: { width: 1280, height: 800 },
    serviceWorkers: "block",
  });
  const other = await browser.newContext({
    viewport: { width: 1280, height: 800 },
    serviceWorkers: "block",
  });
  const { page, errors } = await newPage(desk);
  const bob = await RawIrcClient.connect(irc.port, "bob");
  const box = (p: Page) => p.getByLabel("Message", { exact: true });
  const entry = (p: Page, name: string) => p.locator(".sidebar .conv", { hasText: name }).first();
  const open = openConversation;
  // The box is busy until the conversation's draft has come from the server.
  const draftShown = (p: Page) => p.locator("#composer-input[aria-busy=false]").waitFor();
  try {
    for (const c of ["#tea", "#news", "#misc"]) await bob.join(c);

    await t.step("set up: fay registers and joins three channels", async () => {
      await registerAndConnect(page, server.url, irc.port, {
        email: EMAIL,
        password: PASSWORD,
        nick: "fay",
        channel: "#tea",
      });
      await bob.waitForMember("#tea", "fay");
      for (const c of ["#news", "#misc"]) {
        await sendLine(page, `/join ${c}`);
        await page.waitForURL(`**/chat/irc-localhost/${encodeURIComponent(c)}`);
        await bob.waitForMember(c, "fay");
      }
      await open(page, "#tea");
    });

    await t.step("15: a muted channel is dimmed and not counted in the title", async () => {
      await entry(page, "#news").click({ button: "right" });
      const menu = page.getByRole("menu", { name: "Actions for #news" });
      await assertOnScreen(page, menu);
      const current = menu.getByRole("menuitemradio", { name: "Mentions only" });
      assertEquals(await current.getAttribute("aria-checked"), "true", "a channel's default");
      await menu.getByRole("menuitemradio", { name: "Muted" }).click();
      await page.waitForFunction(() =>
        [...document.querySelectorAll(".sidebar li.muted .conv")].some((a) =>
          a.textContent?.includes("#news") && Number(getComputedStyle(a).opacity) < 1
        )
      );
      await assertOnScreen(page, entry(page, "#news"));
      // A mention in #misc counts in the title; twice as many in muted #news do not.
      await bob.say("#misc", "fay: one line");
      await bob.say("#news", "fay: first news");
      await bob.say("#news", "fay: second news");
      await page.waitForFunction(() =>
        [...document.querySelectorAll(".sidebar .conv")].some((a) =>
          a.textContent?.includes("#news") &&
          a.querySelector(".badge:not(.mention)")?.textContent === "2"
        )
      );
      await page.waitForFunction(() =>
        [...document.querySelectorAll(".sidebar .conv")].some((a) =>
          a.textContent?.includes("#misc") &&
          a.querySelector(".badge:not(.mention)")?.textContent === "1"
        )
      );
      // The title names the open conversation and counts unread mentions, not #news's.
      await page.waitForFunction(() =>
        [...document.querySelectorAll(".sidebar .conv")].some((a) =>
          a.textContent?.includes("#misc") &&
          a.querySelector(".badge.mention")?.textContent === "@1"
        )
      );
      assertEquals(await page.title(), "(1) #tea - Parley");
      // The level is the server's: a reload keeps it, and the settings show it chosen.
      await page.goto(
        `${server.url}/settings/conversation/irc-localhost/${encodeURIComponent("#news")}`,
      );
      const muted = page.getByRole("radio", { name: "Muted" });
      await muted.scrollIntoViewIfNeeded();
      await assertOnScreen(page, muted);
      assert(await muted.isChecked(), "muted is chosen after a reload");
      await page.waitForFunction(() => document.title.endsWith("Settings - Parley"));
      // After a reload the server's notifications count #news's mentions too: still left out.
      assertEquals(await page.title(), "(1) Settings - Parley");
      await page.getByRole("radio", { name: "All messages" }).check();
      await page.waitForFunction(() => document.title === "(3) Settings - Parley");
    });

    await t.step("16: a half-typed line follows fay to another browser", async () => {
      // The line is typed before #tea's draft has come from the server: it is saved all the same.
      let release = () => {};
      const held = new Promise<void>((r) => (release = r));
      const isDraft = (u: URL) => u.pathname.endsWith("/draft");
      await page.route(isDraft, async (route) => {
        if (route.request().method() === "GET") await held;
        await route.continue();
      });
      await page.goto(server.url + "/chat/irc-localhost/%23tea");
      await page.locator(".sidebar .socket.open").waitFor();
      const saved = page.waitForRequest((r) =>
        r.method() === "POST" && r.url().endsWith("/draft") &&
        r.postData()?.includes("half a thought") === true
      );
      await box(page).fill("half a thought");
      assertEquals(await page.locator("#composer-input").getAttribute("aria-busy"), "true");
      release();
      await saved;
      await page.unroute(isDraft);
      // It stays with #tea: another conversation has its own box.
      await open(page, "#misc");
      await draftShown(page);
      assertEquals(await box(page).inputValue(), "");
      await open(page, "#tea");
      await page.waitForFunction(() =>
        (document.getElementById("composer-input") as HTMLTextAreaElement | null)?.value ===
          "half a thought"
      );
      const { page: two } = await newPage(other);
      await two.goto(server.url + "/login");
      await two.getByLabel("Email").fill(EMAIL);
      await two.getByLabel("Password", { exact: true }).fill(PASSWORD);
      await two.getByRole("button", { name: "Log in" }).click();
      await two.waitForURL((u) => u.pathname.startsWith("/chat"));
      await two.goto(server.url + "/chat/irc-localhost/%23tea");
      await two.locator(".sidebar .socket.open").waitFor();
      await two.waitForFunction(() =>
        (document.getElementById("composer-input") as HTMLTextAreaElement | null)?.value ===
          "half a thought"
      );
      await assertOnScreen(two, box(two));
      // Sent from there, it is gone here too.
      await box(two).fill("half a thought, finished");
      const cleared = two.waitForResponse((r) =>
        r.request().method() === "POST" && r.url().endsWith("/draft") &&
        r.request().postData() === JSON.stringify({ draft: "" })
      );
      await box(two).press("Enter");
      await cleared;
      await bob.waitFor((l) =>
        l.command === "PRIVMSG" && l.params[1] === "half a thought, finished"
      );
      await page.reload();
      await page.locator(".sidebar .socket.open").waitFor();
      await page.getByText("half a thought, finished").waitFor();
      await draftShown(page);
      assertEquals(await box(page).inputValue(), "");
    });

    assertEquals(errors, []);
  } finally {
    await bob.close().catch(() => {});
    await browser.close();
    await server.close();
    await irc.close();
  }
});
