/**
 * A gap filled from the server's history while the conversation is open, in real Chromium: the
 * lines the server kept arrive after a line said since the connection came back, and are shown in
 * their place, before it, not at the end; filled whole, the gap is not marked.
 */
import { assert } from "../support/assert.ts";
import { startServer } from "../support/server.ts";
import { answerJoin, startHostileIrc } from "../support/hostile_irc.ts";
import { assertOnScreen, launchBrowser } from "../support/browser.ts";
import { deskPage, openConversation, registerAndConnect } from "../support/chat_page.ts";

Deno.test("web client: a gap's lines from the server's history are shown in their place", async () => {
  const irc = startHostileIrc({
    caps: ["draft/chathistory", "batch", "server-time", "message-tags"],
    history: { limit: 100 },
  });
  const server = await startServer();
  const browser = await launchBrowser();
  const { context, page, errors } = await deskPage(browser);
  try {
    await registerAndConnect(page, server.url, irc.port, {
      email: "ann@example.com",
      password: "ann's long password",
      nick: "alice",
      channel: "#chan",
    });
    let up = await irc.registered();
    await answerJoin(up);
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
    up = await irc.registered();
    // Said once the connection is back, before the rejoin asks the server's history.
    await up.send(":carol!c@host PRIVMSG #chan :said since the connection came back");
    const since = page.locator(".messages .line", { hasText: "said since the connection" });
    await assertOnScreen(page, since);
    await answerJoin(up);

    const filled = page.locator(".messages .line", { hasText: "said while the connection was" });
    await assertOnScreen(page, filled);
    const before = await filled.evaluate(
      (el, g) => !!(el.compareDocumentPosition(g as Node) & Node.DOCUMENT_POSITION_FOLLOWING),
      await since.elementHandle(),
    );
    assert(before, "the filled line is shown before the line said after the gap");
    // Everything the server sent before this line was handled once it shows: the gap was filled
    // whole, and no marker says lines may be missing.
    await up.send(":carol!c@host PRIVMSG #chan :said after the fill");
    await assertOnScreen(page, page.locator(".messages .line", { hasText: "after the fill" }));
    assert(await page.locator(".messages .line.look-gap").count() === 0, "no gap marker");
    assert(errors.length === 0, errors.join("\n"));
  } finally {
    await context.close();
    await browser.close();
    await server.close();
    await irc.close();
  }
});
