/**
 * Typing and finding one's way, in real Chromium against the real daemon and a real ngircd: the
 * completion popup for commands, nicks, channels and emoji (at desktop and phone size), opening Parley
 * where the user left off, the nick menu by keyboard, and the tab's title.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { startServer } from "../support/server.ts";
import { startIrcServer } from "../support/ngircd.ts";
import {
  assertOnScreen,
  launchBrowser,
  newPage,
  type Page,
  screenshot,
} from "../support/browser.ts";
import {
  composer,
  deskPage,
  goLive,
  IrcPeople,
  openConversation,
  registerAndConnect,
  sendLine,
} from "../support/chat_page.ts";

/** The path of the page, decoded. */
const here = (page: Page) => decodeURIComponent(new URL(page.url()).pathname);

/** The listbox of the completion popup and its chosen option's text, from the box's own view. */
async function chosen(page: Page): Promise<string> {
  return await page.evaluate(() => {
    const box = document.querySelector("#composer-input")!;
    const id = box.getAttribute("aria-activedescendant");
    return id ? document.getElementById(id)?.textContent ?? "(missing)" : "";
  });
}

/** Waits until the message box holds `want`; returns what it holds. */
async function valueIs(page: Page, want: string): Promise<string> {
  await page.waitForFunction(
    (want) => (document.querySelector("#composer-input") as HTMLTextAreaElement).value === want,
    want,
    { timeout: 5000 },
  ).catch(() => {});
  return await composer(page).inputValue();
}

Deno.test("composer and navigation: popup, last conversation, nick menu keys, title", async (t) => {
  const irc = await startIrcServer();
  const server = await startServer({ env: { PARLEY_TEST_FAST_IRC: "1" } });
  const browser = await launchBrowser();
  const { context, page, errors } = await deskPage(browser);
  const people = new IrcPeople(irc.port);
  const box = composer(page);
  try {
    const bea = await people.add("bea", "#busy", "#bench");
    const bob = await people.add("bob", "#busy", "#bench");
    await people.add("carl", "#busy");

    await t.step("set up: gus registers, joins #busy and #bench; bea, then bob speak", async () => {
      await registerAndConnect(page, server.url, irc.port, {
        email: "gus@example.com",
        password: "gus's long password",
        nick: "gus",
        channel: "#busy",
      });
      await bob.waitForMember("#busy", "gus");
      await sendLine(page, "/join #bench");
      await page.waitForURL(`**/chat/irc-localhost/${encodeURIComponent("#bench")}`);
      await bob.waitForMember("#bench", "gus");
      await openConversation(page, "#busy");
      await bea.say("#busy", "bea speaks first");
      await page.locator(".line", { hasText: "bea speaks first" }).waitFor();
      await bob.say("#busy", "bob speaks last");
      await page.locator(".line", { hasText: "bob speaks last" }).waitFor();
      await page.waitForFunction(() =>
        document.querySelector(".members")?.textContent?.includes("carl")
      );
    });

    await t.step("11: / shows the commands with their usage; arrows, Escape, Enter", async () => {
      await box.click();
      await box.pressSequentially("/jo");
      const list = page.getByRole("listbox", { name: "Commands" });
      await assertOnScreen(page, list);
      const join = list.getByRole("option", { name: /^\/join/ });
      await assertOnScreen(page, join);
      assert((await join.textContent())!.includes("<#channel>"), "the usage is shown");
      assertEquals(await join.getAttribute("aria-selected"), "true");
      assert((await chosen(page)).startsWith("/join"), "the box names the chosen option");
      await screenshot(page, "composer-popup");
      await box.press("Escape");
      await list.waitFor({ state: "detached" });
      assertEquals(await box.inputValue(), "/jo", "Escape closes, nothing else");
      await box.pressSequentially("i");
      await assertOnScreen(page, list);
      await box.press("Enter");
      assertEquals(await valueIs(page, "/join "), "/join ", "Enter takes the chosen command");
      await list.waitFor({ state: "detached" });
      await box.fill("");
    });

    await t.step(
      "11: @ shows the nicks present, recent speakers first; arrows choose",
      async () => {
        await box.pressSequentially("@b");
        const list = page.getByRole("listbox", { name: "Nicks" });
        await assertOnScreen(page, list);
        assertEquals(await list.getByRole("option").allTextContents(), ["bob", "bea"]);
        assertEquals(await chosen(page), "bob");
        await box.press("ArrowDown");
        await page.waitForFunction(() =>
          document.querySelector("[role=option][aria-selected=true]")?.textContent === "bea"
        );
        assertEquals(await chosen(page), "bea");
        await box.press("ArrowDown");
        await box.press("ArrowUp");
        assertEquals(await chosen(page), "bea", "the arrows wrap around");
        await box.press("Enter");
        assertEquals(await valueIs(page, "bea: "), "bea: ", "a nick at the start is addressed");
        await box.fill("");
      },
    );

    await t.step(
      "11: # shows the channels; Tab takes the chosen one, Tab completes as before",
      async () => {
        await box.pressSequentially("see #b");
        const list = page.getByRole("listbox", { name: "Channels" });
        await assertOnScreen(page, list);
        assertEquals(await list.getByRole("option").allTextContents(), ["#bench", "#busy"]);
        await box.press("Tab");
        assertEquals(await valueIs(page, "see #bench "), "see #bench ");
        await box.press("Tab");
        assertEquals(await valueIs(page, "see #busy "), "see #busy ", "Tab again steps on");
        // A nick's first letters offer it without choosing it: Enter would still send.
        await box.fill("");
        await box.pressSequentially("ca");
        const nicks = page.getByRole("listbox", { name: "Nicks" });
        await assertOnScreen(page, nicks.getByRole("option", { name: "carl" }));
        assertEquals(await chosen(page), "", "nothing chosen");
        await box.press("Tab");
        assertEquals(await valueIs(page, "carl: "), "carl: ", "Tab completes as it did");
        await box.fill("");
      },
    );

    await t.step("`:` and a name's first letters show the emoji; Enter puts it in", async () => {
      await box.pressSequentially("well done :tad");
      const list = page.getByRole("listbox", { name: "Emoji" });
      await assertOnScreen(page, list);
      assertEquals(await chosen(page), "🎉 :tada:", "the first chosen");
      await box.press("Enter");
      assertEquals(await valueIs(page, "well done 🎉 "), "well done 🎉 ", "in place of its name");
      await list.waitFor({ state: "detached" });
      await box.press("Enter");
      await bea.waitFor((l) => l.command === "PRIVMSG" && l.params[1] === "well done 🎉");
      await assertOnScreen(page, page.locator(".line", { hasText: "well done 🎉" }));
    });

    await t.step("11: the popup at phone size, above the box and inside the screen", async () => {
      const phone = await browser.newContext({
        viewport: { width: 390, height: 844 },
        storageState: await context.storageState(),
        serviceWorkers: "block",
      });
      const { page: p, errors: phoneErrors } = await newPage(phone);
      try {
        await p.goto(server.url + "/chat/irc-localhost/%23busy");
        await p.locator(".sidebar .socket.open").waitFor({ state: "attached" });
        const pbox = composer(p);
        await assertOnScreen(p, pbox);
        await pbox.click();
        await pbox.pressSequentially("/");
        const list = p.getByRole("listbox", { name: "Commands" });
        await assertOnScreen(p, list);
        await assertOnScreen(p, list.getByRole("option").first());
        const [l, b] = await Promise.all([list.boundingBox(), pbox.boundingBox()]);
        assert(l && b && l.y + l.height <= b.y + 1, "the popup sits above the box");
        await pbox.pressSequentially("m");
        await assertOnScreen(p, list.getByRole("option", { name: /^\/mode/ }));
        await screenshot(p, "composer-popup-phone");
        await pbox.fill("");
        await pbox.pressSequentially("@");
        await assertOnScreen(
          p,
          p.getByRole("listbox", { name: "Nicks" }).getByRole("option").first(),
        );
        await pbox.fill("");
        assertEquals(phoneErrors, []);
      } finally {
        await phone.close();
      }
    });

    await t.step("10: opening Parley returns to the conversation last open here", async () => {
      // #bench comes first in the sidebar; #busy was open last.
      await page.goto(server.url + "/");
      await page.waitForURL(`**/chat/irc-localhost/${encodeURIComponent("#busy")}`);
      await assertOnScreen(page, page.getByRole("heading", { name: "#busy" }));
      assertEquals(await page.getByText("Pick a conversation").count(), 0);
      // One that is gone (closed, or another account's) is not returned to: the first is opened.
      // Written from a screen that shows no conversation: one that does remembers itself again
      // whenever the user's data is refreshed, which may come after the write.
      await page.goto(server.url + "/settings/account");
      await assertOnScreen(page, page.getByRole("heading", { name: "Account", level: 1 }));
      await page.evaluate(() =>
        localStorage.setItem("parley.lastConversation", JSON.stringify(["irc-localhost", "#gone"]))
      );
      await page.goto(server.url + "/");
      await page.waitForURL(`**/chat/irc-localhost/${encodeURIComponent("#bench")}`);
      await assertOnScreen(page, page.getByRole("heading", { name: "#bench" }));
      await openConversation(page, "#busy");
    });

    await t.step("7: arrows move through the nick menu; Escape returns to the nick", async () => {
      await goLive(page, server.url + "/chat/irc-localhost/%23busy");
      const panel = page.getByRole("complementary", { name: "Members" });
      const nick = panel.getByRole("button", { name: "bob", exact: true });
      await nick.click();
      const menu = page.getByRole("menu", { name: "Actions for bob" });
      await assertOnScreen(page, menu);
      const focused = () => page.evaluate(() => document.activeElement?.textContent ?? "");
      await page.waitForFunction(() => document.activeElement?.getAttribute("role") === "menuitem");
      assertEquals(await focused(), "Private conversation");
      await page.keyboard.press("ArrowDown");
      assertEquals(await focused(), "Who is this?");
      await assertOnScreen(page, menu.getByRole("menuitem", { name: "Who is this?" }));
      await page.keyboard.press("ArrowUp");
      await page.keyboard.press("ArrowUp");
      assertEquals(await focused(), "Ignore", "Up from the first wraps to the last");
      await page.keyboard.press("Home");
      assertEquals(await focused(), "Private conversation");
      await page.keyboard.press("Escape");
      await menu.waitFor({ state: "detached" });
      assert(
        await nick.evaluate((el) => el === document.activeElement),
        "the focus is back on the nick that opened the menu",
      );
    });

    await t.step("14: the tab's title names the conversation, with unread mentions", async () => {
      await page.waitForFunction(() => document.title === "#busy - Parley");
      // Mentions in #bench while gus reads #busy; a plain line there is no mention.
      await bob.say("#bench", "gus: one");
      await bob.say("#bench", "just talk");
      await bob.say("#bench", "gus: two");
      await page.waitForFunction(() => document.title === "(2) #busy - Parley");
      await openConversation(page, "#bench");
      await page.waitForFunction(() => document.title === "#bench - Parley");
      await page.goto(server.url + "/chat/notifications");
      await page.waitForFunction(() => document.title === "Notifications - Parley");
      assertEquals(here(page), "/chat/notifications");
    });

    assertEquals(errors, []);
  } finally {
    await people.close();
    await context.close();
    await browser.close();
    await server.close();
    await irc.close();
  }
});
