/**
 * How lines look and how the client reads to assistive technology, in real Chromium against the
 * real daemon and a real ngircd: IRC and nick colours readable on the light and the dark theme,
 * the user's own lines marked, mode lines worded the same live and after a reload, the Sessions
 * page on the chosen clock, `/me` in search results, new lines spoken politely, and axe-core
 * finding nothing wrong in the chat, settings, search and notifications views in both themes.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { startServer } from "../support/server.ts";
import { startIrcServer } from "../support/ngircd.ts";
import {
  assertOnScreen,
  launchBrowser,
  type Locator,
  type Page,
  screenshot,
} from "../support/browser.ts";
import {
  deskPage,
  IrcPeople,
  lineWith,
  registerAndConnect,
  sendLine,
} from "../support/chat_page.ts";
import { axeViolations } from "../support/axe.ts";
import { contrast, type Rgb } from "../../static/app/contrast.ts";
import { poll } from "../support/poll.ts";

const rgb = (css: string): Rgb => {
  const m = /rgba?\(([\d.]+),? ([\d.]+),? ([\d.]+)/.exec(css);
  assert(m, `a colour: ${css}`);
  return [Number(m[1]), Number(m[2]), Number(m[3])];
};

/** The contrast of the element's text against the page it is drawn on (the message list's). */
async function contrastOf(page: Page, el: Locator): Promise<number> {
  await assertOnScreen(page, el);
  const [fg, bg] = await el.evaluate((e) => [
    getComputedStyle(e).color,
    getComputedStyle(document.querySelector(".messages")!).backgroundColor === "rgba(0, 0, 0, 0)"
      ? getComputedStyle(document.body).backgroundColor
      : getComputedStyle(document.querySelector(".messages")!).backgroundColor,
  ]);
  return contrast(rgb(fg), rgb(bg));
}

async function setTheme(page: Page, theme: "light" | "dark") {
  await page.evaluate((t) => (document.documentElement.dataset.theme = t), theme);
}

async function assertNoViolations(page: Page, where: string) {
  const found = await axeViolations(page);
  assertEquals(found, [], `axe in ${where}`);
}

Deno.test("look and accessibility: colours, own lines, wording, axe", async (t) => {
  const irc = await startIrcServer();
  const server = await startServer();
  const browser = await launchBrowser();
  const { context, page, errors } = await deskPage(browser);
  const people = new IrcPeople(irc.port);
  try {
    const bob = await people.add("bob", "#room");
    await registerAndConnect(page, server.url, irc.port, {
      email: "dana@example.com",
      password: "dana's long password",
      nick: "dana",
      channel: "#room",
    });
    await page.getByRole("link", { name: "#room" }).click();
    await page.waitForURL("**/chat/irc-localhost/%23room");
    await bob.waitForMember("#room", "dana");

    await t.step(
      "IRC blue and white and the nick colours are readable in both themes",
      async () => {
        await bob.say("#room", "\x0312blue words\x03 and \x0300white words\x03 and \x0308yellow");
        const line = lineWith(page, "blue words");
        const blue = line.getByText("blue words");
        const white = line.getByText("white words");
        const yellow = line.getByText("yellow");
        const nick = line.locator(".nick");
        for (const theme of ["light", "dark"] as const) {
          await setTheme(page, theme);
          for (
            const [what, el] of [["blue", blue], ["white", white], ["yellow", yellow], [
              "bob",
              nick,
            ]] as const
          ) {
            const ratio = await contrastOf(page, el);
            assert(ratio >= 4.5, `${what} in the ${theme} theme: ${ratio.toFixed(2)}:1`);
          }
        }
        // Still blue: the hue is kept.
        const [r, g, b] = rgb(await blue.evaluate((e) => getComputedStyle(e).color));
        assert(b > r + 60 && b > g + 60, `blue stays blue: ${r},${g},${b}`);
        await setTheme(page, "light");
      },
    );

    await t.step("the user's own lines are marked with a band and a tint", async () => {
      await sendLine(page, "words dana wrote herself");
      await bob.say("#room", "words bob wrote");
      const mine = lineWith(page, "words dana wrote herself");
      const theirs = lineWith(page, "words bob wrote");
      await assertOnScreen(page, mine);
      await assertOnScreen(page, theirs);
      const look = (l: Locator) =>
        l.evaluate((e) => [getComputedStyle(e).backgroundColor, getComputedStyle(e).boxShadow]);
      const [mineBg, mineBand] = await look(mine);
      const [theirBg, theirBand] = await look(theirs);
      assert(mineBg !== theirBg, `a tint: ${mineBg} vs ${theirBg}`);
      assert(mineBand.includes("inset") && theirBand === "none", `a band: ${mineBand}`);
    });

    await t.step("a new line is spoken politely, the log itself is not read out", async () => {
      await bob.say("#room", "a line for the screen reader");
      const status = page.locator(".messages [role=status]");
      await poll(
        "the newest line in the live region",
        async () => (await status.textContent()) === "bob: a line for the screen reader",
      );
      // The same words again are spoken again: the region's text changes.
      await bob.say("#room", "a line for the screen reader");
      await poll(
        "the repeated line in the live region",
        async () => (await status.textContent()) === "bob: a line for the screen reader\u00a0",
      );
      assertEquals(await status.getAttribute("aria-live"), "polite");
      assertEquals(await page.getByRole("log").getAttribute("aria-live"), "off");
    });

    await t.step("mode lines say the same live and after a reload", async () => {
      await bob.send("MODE #room +v dana");
      await assertOnScreen(page, lineWith(page, "bob sets mode +v dana"));
      await page.reload();
      await assertOnScreen(page, lineWith(page, "bob sets mode +v dana"));
      assertEquals(await page.getByText("bob set mode +v dana.").count(), 0);
    });

    await t.step("/me in search results looks like an action", async () => {
      await bob.say("#room", "\x01ACTION dances around the room\x01");
      await lineWith(page, "dances around the room").waitFor();
      await page.goto(server.url + "/chat/search?q=dances");
      const result = page.locator(".results li", { hasText: "dances around the room" });
      await assertOnScreen(page, result.getByText("* bob"));
      assertEquals(
        await result.locator(".text").evaluate((e) => getComputedStyle(e).fontStyle),
        "italic",
      );
    });

    await t.step("the Sessions page follows the 24-hour clock", async () => {
      await page.goto(server.url + "/settings/account");
      const sessions = page.getByRole("list", { name: "Sessions" });
      await assertOnScreen(page, sessions.getByText(/signed in/).first());
      const text = (await sessions.textContent()) ?? "";
      assert(/\b([01]\d|2[0-3]):[0-5]\d/.test(text), `a 24-hour time: ${text}`);
      assert(!/\b(AM|PM)\b/i.test(text), `no AM or PM: ${text}`);
    });

    await t.step(
      "axe finds nothing in chat, settings, search and notifications, light and dark",
      async () => {
        // A mention (highlighted), a notice and colours on the page axe looks at, too.
        await page.goto(server.url + "/chat/irc-localhost/%23room");
        await bob.say("#room", "dana: the \x02new\x02 \x0304colours\x03 read well on \x0302both");
        await bob.send("NOTICE #room :a notice from bob");
        await lineWith(page, "a notice from bob").waitFor();
        const views = [
          ["chat", "/chat/irc-localhost/%23room", ".composer"],
          // The screen's own heading: the sidebar's headings are there while its chunk loads.
          ["settings", "/settings/account", "main.page h1"],
          ["search", "/chat/search?q=words", ".results"],
          ["notifications", "/chat/notifications", ".results"],
        ];
        for (const theme of ["light", "dark"] as const) {
          await page.evaluate((t) => localStorage.setItem("parley.theme", t), theme);
          for (const [name, path, ready] of views) {
            await page.goto(server.url + path);
            await page.locator(ready).first().waitFor();
            await poll("the view loaded", async () => await page.locator(".loading").count() === 0);
            if (name === "chat") {
              await lineWith(page, "a notice from bob").waitFor();
              await screenshot(page, `look-${theme}`);
            }
            await assertNoViolations(page, `${name} (${theme})`);
          }
        }
        // The compact layout (for docs/web.md), where axe finds nothing either.
        await page.evaluate(() => {
          localStorage.setItem("parley.compact", "on");
          localStorage.setItem("parley.theme", "light");
        });
        await page.goto(server.url + "/chat/irc-localhost/%23room");
        await lineWith(page, "a notice from bob").waitFor();
        await screenshot(page, "look-compact-light");
        await assertNoViolations(page, "chat, compact");
        // At phone size too, where the sidebar is a drawer and the header is narrower.
        await page.setViewportSize({ width: 390, height: 844 });
        await page.evaluate(() => localStorage.setItem("parley.compact", "off"));
        await page.reload();
        await lineWith(page, "a notice from bob").waitFor();
        await assertNoViolations(page, "chat, phone");
      },
    );
    assertEquals(errors, []);
  } finally {
    await people.close();
    await context.close();
    await browser.close();
    await server.close();
    await irc.close();
  }
});
