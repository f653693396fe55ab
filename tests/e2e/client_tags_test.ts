/**
 * Typing, reactions and replies over IRCv3 client tags, in real Chromium against the real daemon
 * and a scripted server that offers message-tags and echo-message (as a real one would, it echoes
 * the user's lines back with their tags): bob's typing shows under the messages, his reaction
 * under his message, and the user's reply and reactions (a common one, one found by name) go out
 * tagged.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { startServer } from "../support/server.ts";
import { answerJoin, startHostileIrc } from "../support/hostile_irc.ts";
import { assertOnScreen, launchBrowser, screenshot } from "../support/browser.ts";
import { composer, deskPage, openConversation, registerAndConnect } from "../support/chat_page.ts";

Deno.test("client tags: bob's typing and reaction in view; a reply and a reaction go out", async () => {
  const irc = startHostileIrc({ caps: ["message-tags", "echo-message", "server-time"] });
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
    const up = await irc.registered();
    await answerJoin(up);
    await openConversation(page, "#chan");

    await up.send("@msgid=srv1 :bob!bob@host PRIVMSG #chan :shall we ship it?");
    const bobsLine = page.locator(".line", { hasText: "shall we ship it?" }).last();
    await assertOnScreen(page, bobsLine);

    // bob types: the line says so, under the messages.
    await up.send("@+typing=active :bob!bob@host TAGMSG #chan");
    await assertOnScreen(page, page.getByText("bob is typing…"));
    // bob reacts to his own message: a count under it.
    await up.send("@+draft/react=👍;+draft/reply=srv1 :bob!bob@host TAGMSG #chan");
    await assertOnScreen(page, bobsLine.locator(".reaction", { hasText: "👍 1" }));
    await screenshot(page, "client-tags");

    // The user types: the server is told (TAGMSG +typing=active).
    await composer(page).pressSequentially("sur");
    assertEquals(
      await up.waitFor((l) => l.endsWith("TAGMSG #chan") && l.includes("+typing=")),
      "@+typing=active TAGMSG #chan",
    );
    await composer(page).fill("");

    // The user reacts to bob's message.
    await bobsLine.getByRole("button", { name: "React" }).click();
    await bobsLine.getByRole("button", { name: "🎉" }).click();
    const reacted = await up.waitFor((l) => l.includes("+draft/react="));
    assertEquals(reacted, "@+draft/react=🎉;+draft/reply=srv1 TAGMSG #chan");
    // Any emoji, found by its name: the common ones give way to what is found.
    await bobsLine.getByRole("button", { name: "React" }).click();
    const search = bobsLine.getByRole("searchbox", { name: "Find an emoji" });
    await assertOnScreen(page, search);
    await search.fill("rocket");
    const rocket = bobsLine.getByRole("button", { name: "🚀" });
    await assertOnScreen(page, rocket);
    assertEquals(await rocket.getAttribute("title"), ":rocket:");
    assertEquals(await bobsLine.locator(".reaction.pick", { hasText: "🎉" }).count(), 0);
    await search.press("Enter");
    const found = await up.waitFor((l) => l.includes("+draft/react=🚀"));
    assertEquals(found, "@+draft/react=🚀;+draft/reply=srv1 TAGMSG #chan");
    assertEquals(await search.count(), 0, "the picker closed");
    await bobsLine.getByRole("button", { name: "React" }).click();
    await search.fill("zzqqxx");
    await assertOnScreen(page, bobsLine.getByText("No emoji found."));
    await search.press("Escape");
    assertEquals(await search.count(), 0, "Escape closes the picker");

    // The user replies to bob's message: the box says so, and the line goes out tagged.
    await bobsLine.getByRole("button", { name: "Reply" }).click();
    await assertOnScreen(page, page.getByText("Replying to bob: shall we ship it?"));
    await composer(page).fill("yes, today");
    await composer(page).press("Enter");
    const reply = await up.waitFor((l) => l.includes("PRIVMSG #chan :yes, today"));
    assertEquals(reply, "@+draft/reply=srv1 PRIVMSG #chan :yes, today");
    // The server's echo is the stored line: it quotes what it answers.
    await up.send("@msgid=srv2;+draft/reply=srv1 :alice!alice@host PRIVMSG #chan :yes, today");
    const mine = page.locator(".line", { hasText: "yes, today" }).last();
    await assertOnScreen(page, mine.getByText("In reply to bob: shall we ship it?"));
    assert(!(await page.getByText("Replying to bob").isVisible()), "the reply bar is gone");
    assertEquals(errors, []);

    // On a phone (a touch screen, nothing to hover): after a reload, the reaction is under its
    // message and the actions are there to tap.
    const phone = await browser.newContext({
      viewport: { width: 390, height: 844 },
      hasTouch: true,
      isMobile: true,
      serviceWorkers: "block",
      storageState: await context.storageState(),
    });
    try {
      const small = await phone.newPage();
      await small.goto(`${server.url}/chat/irc-localhost/%23chan`);
      // bob's line (the user's reply quotes it too).
      const line = small.locator(".line", { hasText: "shall we ship it?" }).first();
      await assertOnScreen(small, line.locator(".reaction", { hasText: "👍 1" }));
      await assertOnScreen(small, line.getByRole("button", { name: "Reply" }));
      await screenshot(small, "client-tags-phone");
    } finally {
      await phone.close();
    }
  } finally {
    await context.close();
    await browser.close();
    await server.close();
    await irc.close();
  }
});
