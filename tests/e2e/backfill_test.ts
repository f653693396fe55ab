/**
 * A gap filled from the server's history while the conversation is open, in real Chromium: the
 * lines the server kept arrive after a line said since the connection came back, and are shown in
 * their place, before it, not at the end, the channel's events among them too (changing nothing);
 * filled whole, the gap is not marked; a mention in them shows on its conversation's badge at once.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { startServer } from "../support/server.ts";
import { answerJoin, startHostileIrc } from "../support/hostile_irc.ts";
import { assertOnScreen, launchBrowser } from "../support/browser.ts";
import { deskPage, openConversation, registerAndConnect } from "../support/chat_page.ts";

Deno.test("web client: a gap's lines from the server's history are shown in their place", async () => {
  const irc = startHostileIrc({
    caps: ["draft/chathistory", "draft/event-playback", "batch", "server-time", "message-tags"],
    history: { limit: 100 },
  });
  const server = await startServer();
  const browser = await launchBrowser();
  const { context, page, errors } = await deskPage(browser);
  try {
    // Desktop notifications on, each one shown counted.
    await context.grantPermissions(["notifications"], { origin: server.url });
    await context.addInitScript(() => {
      const g = globalThis as unknown as { shown: string[]; Notification: typeof Notification };
      g.shown = [];
      g.Notification = class extends g.Notification {
        constructor(title: string, options?: NotificationOptions) {
          super(title, options);
          g.shown.push(title);
        }
      };
      try {
        localStorage.setItem("parley.notify", "on");
      } catch {
        // about:blank has no storage.
      }
    });
    await registerAndConnect(page, server.url, irc.port, {
      email: "ann@example.com",
      password: "ann's long password",
      nick: "alice",
      channel: "#chan",
    });
    let up = await irc.registered();
    await answerJoin(up);
    // A second channel, joined by the server, not open.
    await up.send(":alice!alice@host JOIN #other");
    await up.send(":irc.hostile.test 366 alice #other :End of /NAMES list.");
    await page.locator(".conv", { hasText: "#other" }).waitFor();
    await openConversation(page, "#chan");
    await up.send(":bob!bob@host PRIVMSG #chan :before the gap");
    await assertOnScreen(page, page.locator(".line", { hasText: "before the gap" }));

    // Down for more than a second; the server keeps what bob said meanwhile.
    // Long enough that the line said in it comes well after Parley saw the connection go.
    irc.delayWelcome(4000);
    up.close();
    irc.remember({
      time: new Date(Date.now() + 1500).toISOString(),
      msgid: "kept1",
      source: "bob!bob@host",
      command: "PRIVMSG",
      target: "#chan",
      text: "said while the connection was down",
    });
    // An event of the gap: shown in its place too, and changing nothing (the topic is what the
    // rejoin tells).
    irc.remember({
      time: new Date(Date.now() + 1550).toISOString(),
      msgid: "kept3",
      source: "carol!c@host",
      command: "TOPIC",
      target: "#chan",
      params: ["#chan", "a topic of the gap"],
    });
    irc.remember({
      time: new Date(Date.now() + 1600).toISOString(),
      msgid: "kept2",
      source: "bob!bob@host",
      command: "PRIVMSG",
      target: "#other",
      text: "alice: a mention from the gap",
    });
    up = await irc.registered();
    // Said once the connection is back, before the rejoin asks the server's history.
    await up.send(":carol!c@host PRIVMSG #chan :said since the connection came back");
    const since = page.locator(".messages .line", { hasText: "said since the connection" });
    await assertOnScreen(page, since);
    await answerJoin(up);
    await answerJoin(up, "#other");

    const filled = page.locator(".messages .line", { hasText: "said while the connection was" });
    await assertOnScreen(page, filled);
    const before = await filled.evaluate(
      (el, g) => !!(el.compareDocumentPosition(g as Node) & Node.DOCUMENT_POSITION_FOLLOWING),
      await since.elementHandle(),
    );
    assert(before, "the filled line is shown before the line said after the gap");
    const topic = page.locator(".messages .line", {
      hasText: "carol changed the topic to: a topic of the gap",
    });
    await assertOnScreen(page, topic);
    const topicFirst = await filled.evaluate(
      (el, g) => !!(el.compareDocumentPosition(g as Node) & Node.DOCUMENT_POSITION_FOLLOWING),
      await topic.elementHandle(),
    );
    assert(topicFirst, "the gap's topic is shown after the line said before it");
    const topicBefore = await topic.evaluate(
      (el, g) => !!(el.compareDocumentPosition(g as Node) & Node.DOCUMENT_POSITION_FOLLOWING),
      await since.elementHandle(),
    );
    assert(topicBefore, "the gap's topic is shown before the line said after the gap");
    // Everything the server sent before this line was handled once it shows: the gap was filled
    // whole, and no marker says lines may be missing.
    await up.send(":carol!c@host PRIVMSG #chan :said after the fill");
    await assertOnScreen(page, page.locator(".messages .line", { hasText: "after the fill" }));
    assert(await page.locator(".messages .line.look-gap").count() === 0, "no gap marker");
    const header = await page.locator(".channel-topic .topic-text").textContent();
    assert(!header?.includes("a topic of the gap"), "the channel's topic changed");
    // A mention in the other channel's filled history shows on its badge now, not at a reload.
    const badge = page.locator(".conv", { hasText: "#other" }).locator(".badge.mention");
    await assertOnScreen(page, badge);
    assertEquals(await badge.textContent(), "@1");
    // Counted, but no news: no desktop notification for it, where a live mention shows one.
    await up.send(":bob!bob@host PRIVMSG #other :alice: said live");
    await page.waitForFunction(() =>
      document.querySelector(".conv:has(.badge.mention) .badge.mention")?.textContent === "@2"
    );
    assertEquals(await page.evaluate(() => (globalThis as unknown as { shown: string[] }).shown), [
      "bob (#other)",
    ]);
    assert(errors.length === 0, errors.join("\n"));
  } finally {
    await context.close();
    await browser.close();
    await server.close();
    await irc.close();
  }
});
