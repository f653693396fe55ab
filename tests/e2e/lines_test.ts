/**
 * Kinds of line told apart at a glance: in real Chromium against the real daemon and a real
 * ngircd, a notice shows its sender and a marker right after the same person's message (it was
 * folded under it), and a message, an action, a notice, an error and the server's own lines each
 * look different on screen.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { startServer } from "../support/server.ts";
import { startIrcServer } from "../support/ngircd.ts";
import { RawIrcClient } from "../support/irc_client.ts";
import {
  assertOnScreen,
  launchBrowser,
  newPage,
  type Page,
  screenshot,
} from "../support/browser.ts";

/** What a reader sees of a line: its nick (if shown), its marker, and how its text is drawn. */
async function look(page: Page, text: string) {
  const line = page.locator(".line", { hasText: text }).last();
  await assertOnScreen(page, line);
  return await line.evaluate((el) => {
    const shown = (e: Element | null) =>
      !!e && getComputedStyle(e).visibility === "visible" && e.getBoundingClientRect().width > 0;
    const nick = el.querySelector(".nick");
    const marker = el.querySelector(".marker");
    const body = el.querySelector(".text")!;
    const style = getComputedStyle(body);
    return {
      nick: shown(nick) ? (nick!.textContent ?? "").trim() : "",
      marker: shown(marker) ? (marker!.textContent ?? "").trim().toLowerCase() : "",
      drawn: [
        style.fontStyle,
        style.color,
        style.fontFamily.includes("monospace") ? "mono" : "",
        getComputedStyle(el).boxShadow,
      ].join(" | "),
    };
  });
}

Deno.test("lines: notices, actions, errors and server lines are told apart at a glance", async () => {
  const irc = await startIrcServer();
  const server = await startServer();
  const browser = await launchBrowser();
  const context = await browser.newContext({
    viewport: { width: 1280, height: 800 },
    serviceWorkers: "block",
  });
  const { page, errors } = await newPage(context);
  let bob: RawIrcClient | undefined;
  try {
    // bob joins first, so ngircd makes him the channel's operator and the user is not one.
    bob = await RawIrcClient.connect(irc.port, "bob");
    await bob.join("#room");
    await page.goto(server.url + "/register");
    await page.getByLabel("Email").fill("dana@example.com");
    await page.getByLabel("Password", { exact: true }).fill("dana's long password");
    await page.getByRole("button", { name: "Create account" }).click();
    await page.waitForURL("**/settings/connection/add");
    await page.getByLabel("Host", { exact: true }).fill("127.0.0.1");
    await page.getByLabel("Port").fill(String(irc.port));
    await page.getByLabel("Use TLS").uncheck();
    await page.getByLabel("Nick").fill("dana");
    await page.getByLabel("Channel to join").fill("#room");
    await page.getByRole("button", { name: "Connect" }).click();
    await page.waitForURL("**/chat/irc-localhost");
    await page.getByRole("link", { name: "#room" }).click();
    await page.waitForURL("**/chat/irc-localhost/%23room");
    await bob.waitForMember("#room", "dana");

    await bob.say("#room", "a plain message from bob");
    await bob.send("NOTICE #room :heads up, a notice from bob");
    await bob.say("#room", "\x01ACTION waves at everyone\x01");
    const chat = await look(page, "a plain message from bob");
    const notice = await look(page, "heads up, a notice from bob");
    const action = await look(page, "waves at everyone");
    // Not an operator: the server refuses, and the refusal shows where the user is.
    const box = page.getByLabel("Message", { exact: true });
    await box.fill("/kick bob");
    await box.press("Enter");
    const error = await look(page, "privileges are too low");
    await screenshot(page, "lines");
    assertEquals(chat.nick, "bob");
    assertEquals(chat.marker, "");
    // The notice follows bob's own message and still shows who sent it, and that it is a notice.
    const before = await page.locator(".line", { hasText: "heads up" }).evaluate((el) =>
      el.previousElementSibling?.textContent ?? ""
    );
    assert(before.includes("a plain message from bob"), `the line before the notice: ${before}`);
    assertEquals(notice.nick, "-bob-");
    assertEquals(notice.marker, "notice");
    assertEquals(action.nick, "* bob");
    assertEquals(action.marker, "");
    assertEquals(error.marker, "");
    const drawn = [chat.drawn, notice.drawn, action.drawn, error.drawn];
    assertEquals(new Set(drawn).size, 4, `each kind is drawn its own way: ${drawn.join("\n")}`);

    // The server's own lines, in its conversation: in columns, without a marker, unlike a notice.
    await page.locator('.sidebar a[href="/chat/irc-localhost"]').first().click();
    await page.waitForURL(/\/chat\/irc-localhost$/);
    const greeting = page.locator(".line.server").first();
    await greeting.waitFor();
    const text = ((await greeting.locator(".text").textContent()) ?? "").trim();
    assert(text.length > 0, "a server line has text");
    const serverLine = await look(page, text.slice(0, 30));
    assertEquals(serverLine.marker, "");
    assert(serverLine.drawn.includes("mono"), serverLine.drawn);
    assert(!drawn.includes(serverLine.drawn), "a server line looks like none of the others");
    assertEquals(errors, []);
  } finally {
    await bob?.close();
    await context.close();
    await browser.close();
    await server.close();
    await irc.close();
  }
});
