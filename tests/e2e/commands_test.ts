/**
 * What a person sees of the operator commands, ignore, commands that answer and the gap marker:
 * real Chromium against the real daemon and a real ngircd, every check in view.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { startServer } from "../support/server.ts";
import { startIrcServer } from "../support/ngircd.ts";
import { assertOnScreen, launchBrowser, screenshot } from "../support/browser.ts";
import {
  deskPage,
  IrcPeople,
  lineWith,
  openConversation,
  registerAndConnect,
  sendLine,
  untilApi,
} from "../support/chat_page.ts";

Deno.test("web client: operator commands, ignore, answers, gap marker", async (t) => {
  const irc = await startIrcServer();
  const server = await startServer({ env: { PARLEY_TEST_FAST_IRC: "1" } });
  const browser = await launchBrowser();
  const { context, page, errors } = await deskPage(browser);
  const people = new IrcPeople(irc.port);
  const raw = (nick: string, channel = "#room") => people.add(nick, channel);
  const send = (text: string) => sendLine(page, text);
  const line = (text: string | RegExp) => lineWith(page, text);
  try {
    await registerAndConnect(page, server.url, irc.port, {
      email: "dana@example.com",
      password: "dana's long password",
      nick: "dana",
      channel: "#room",
    });
    await openConversation(page, "#room");
    // dana joins first, so ngircd makes her the operator: her join is in history before bob's.
    // (The conversation, and its link, exist from the connection's creation on.)
    await untilApi<{ messages: { type: string; from: string }[] }>(
      page,
      "/api/connection/irc-localhost/conversation/%23room/messages",
      ({ messages }) => messages.some((m) => m.type === "join" && m.from === "dana"),
    );
    const bob = await raw("bob");
    const troll = await raw("troll");
    await bob.waitForMember("#room", "dana");

    await t.step("/op and /voice take several nicks; the change shows", async () => {
      await send("/op bob troll");
      await assertOnScreen(page, line(/dana sets mode \+oo bob troll/));
      await send("/voice bob");
      await assertOnScreen(page, line(/dana sets mode \+v bob/));
    });

    await t.step(
      "ignore: from the nick menu, hidden, listed in the settings, removed there",
      async () => {
        // From troll's menu in the member list: it runs /ignore.
        const panel = page.getByRole("complementary", { name: "Members" });
        await panel.getByRole("button", { name: "troll", exact: true }).click();
        const menu = page.getByRole("menu", { name: "Actions for troll" });
        await assertOnScreen(page, menu.getByRole("menuitem", { name: "Ignore" }));
        await menu.getByRole("menuitem", { name: "Ignore" }).click();
        await assertOnScreen(page, line("Ignoring troll!*@*"));
        await troll.say("#room", "a line nobody wants");
        await troll.send("PING :relayed");
        await troll.waitFor((l) => l.command === "PONG");
        await bob.say("#room", "bob is still heard");
        await assertOnScreen(page, line("bob is still heard"));
        assertEquals(await page.locator(".line", { hasText: "nobody wants" }).count(), 0);
        await page.getByRole("link", { name: "Account" }).click();
        await page.waitForURL("**/settings/account");
        const remove = page.getByRole("button", { name: "Stop ignoring troll!*@*" });
        await remove.scrollIntoViewIfNeeded();
        await assertOnScreen(page, page.getByRole("list", { name: "Ignored people" }));
        await screenshot(page, "ignored-people");
        await remove.click();
        await assertOnScreen(page, page.getByText("Nobody is ignored."));
        await page.getByRole("link", { name: "#room" }).click();
        await page.waitForURL("**/chat/irc-localhost/%23room");
        await troll.say("#room", "troll heard again");
        await assertOnScreen(page, line("troll heard again"));
      },
    );

    await t.step(
      "commands answer: /topic, /mode, /invite, /ison, /ctcp, /msg to nobody",
      async () => {
        await send("/topic");
        await assertOnScreen(page, line("#room has no topic."));
        await send("/topic all about rooms");
        await page.locator(".line", { hasText: "changed the topic" }).last().waitFor();
        await send("/topic");
        await assertOnScreen(page, line("Topic of #room: all about rooms"));
        await send("/mode");
        await assertOnScreen(page, line(/^.*(Modes of #room|No modes are set on #room)/));
        const carol = await raw("carol", "#elsewhere");
        await send("/invite carol");
        await assertOnScreen(page, line("Invited carol to #room."));
        await carol.waitFor((l) => l.command === "INVITE");
        await send("/ison bob");
        await assertOnScreen(page, line("bob is on IRC."));
        await send("/ison nobody");
        await assertOnScreen(page, line("nobody is not on IRC."));
        // bob's client answers a CTCP request as IRC clients do, with a NOTICE.
        await send("/ctcp bob version");
        await bob.waitFor((l) => l.command === "PRIVMSG" && l.params[1] === "\x01VERSION\x01");
        await bob.send("NOTICE dana :\x01VERSION rawbot 1.0\x01");
        await assertOnScreen(page, line("bob answered VERSION: rawbot 1.0"));
        await send("/msg nobody are you there");
        await assertOnScreen(page, line(/nobody: No such nick/));
        assert(
          page.url().endsWith("/chat/irc-localhost/%23room"),
          "the user stays where they were",
        );
        const sidebar = (await page.locator(".sidebar").textContent()) ?? "";
        assert(!sidebar.includes("nobody"), `no conversation with nobody: ${sidebar}`);
      },
    );

    await t.step("an invitation shows where the user is; its button joins", async () => {
      const host = await raw("hostess", "#secret");
      await host.send("MODE #secret +i");
      await host.waitFor((l) => l.command === "MODE" && l.params[1] === "+i");
      await host.send("INVITE dana #secret");
      const invite = line("hostess invites you to #secret.");
      await assertOnScreen(page, invite);
      await invite.getByRole("button", { name: "Join #secret" }).click();
      await host.waitFor((l) => l.command === "JOIN" && l.nick === "dana");
      await assertOnScreen(page, page.locator(".sidebar .conv", { hasText: "#secret" }));
      await openConversation(page, "#room");
    });

    await t.step(
      "/msg NickServ: the line, its password hidden, and its answer in the server's conversation",
      async () => {
        const services = await people.add("NickServ", "#services");
        await send("/msg NickServ identify s3cret");
        await services.waitFor((l) =>
          l.command === "PRIVMSG" && l.params[0] === "NickServ" && l.params[1] === "identify s3cret"
        );
        await services.send("NOTICE dana :You are now identified.");
        await page.waitForURL("**/chat/irc-localhost");
        await assertOnScreen(page, line("You are now identified."));
        // The server got the password; what is kept (and shown on every device) hides it.
        await assertOnScreen(page, line("identify ********"));
        const kept = await page.evaluate(async () =>
          (await (await fetch("/api/search?match=s3cret")).json()).messages.length
        );
        assertEquals(kept, 0, "the password is nowhere in history");
        const sidebar = (await page.locator(".sidebar").textContent()) ?? "";
        assert(!/nickserv/i.test(sidebar), `no conversation of NickServ's: ${sidebar}`);
        await openConversation(page, "#room");
      },
    );

    await t.step("/list: a click on a channel joins it; /join name joins #name", async () => {
      await send("/list");
      const listed = page.getByRole("button", { name: "#elsewhere" });
      await assertOnScreen(page, listed);
      await listed.click();
      await page.waitForURL("**/chat/irc-localhost/%23elsewhere");
      await send("/join plain");
      await page.waitForURL("**/chat/irc-localhost/%23plain");
      await assertOnScreen(page, page.locator("main h1", { hasText: "#plain" }));
      await page.getByRole("link", { name: "#room" }).click();
      await page.waitForURL("**/chat/irc-localhost/%23room");
    });

    await t.step(
      "the gap marker: live when the connection is back, and after a reload",
      async () => {
        await irc.stop();
        // Down, as the API tells the page, before the server comes back.
        await untilApi<{ connections: { state: string }[] }>(
          page,
          "/api/connections",
          ({ connections }) => connections[0]?.state !== "connected",
        );
        await irc.start();
        const gap = page.locator(".messages .line.look-gap").last();
        await gap.waitFor({ timeout: 30_000 });
        await assertOnScreen(page, gap);
        const text = (await gap.textContent()) ?? "";
        assert(
          /Disconnected .+ - .+: messages in between may be missing\./.test(text),
          `the gap says when: ${text}`,
        );
        await screenshot(page, "gap-marker");
        await page.reload();
        const kept = page.locator(".messages .line.look-gap").last();
        await kept.waitFor();
        await kept.scrollIntoViewIfNeeded();
        await assertOnScreen(page, kept);
        assertEquals((await kept.textContent())?.replace(/^\S+/, ""), text.replace(/^\S+/, ""));
        // On a phone too, with the member list (over the messages there) closed.
        await page.setViewportSize({ width: 390, height: 844 });
        const members = page.getByRole("button", { name: "Members" });
        if (await members.getAttribute("aria-expanded") === "true") await members.click();
        await kept.scrollIntoViewIfNeeded();
        await assertOnScreen(page, kept);
        await screenshot(page, "phone-gap-marker");
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
