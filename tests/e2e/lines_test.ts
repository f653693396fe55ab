/**
 * Kinds of line told apart at a glance: in real Chromium against the real daemon and a real
 * ngircd, a notice shows its sender and a marker right after the same person's message (it was
 * folded under it), and a message, an action, a notice, an error and the server's own lines each
 * look different on screen.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { startServer } from "../support/server.ts";
import { startIrcServer } from "../support/ngircd.ts";
import { assertOnScreen, launchBrowser, type Page, screenshot } from "../support/browser.ts";
import { deskPage, IrcPeople, registerAndConnect, sendLine } from "../support/chat_page.ts";

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

/** Registers dana, connects her to the IRC server and opens #room. */
async function danaInRoom(page: Page, url: string, ircPort: number): Promise<void> {
  await registerAndConnect(page, url, ircPort, {
    email: "dana@example.com",
    password: "dana's long password",
    nick: "dana",
    channel: "#room",
  });
  await page.getByRole("link", { name: "#room" }).click();
  await page.waitForURL("**/chat/irc-localhost/%23room");
}

Deno.test("lines: notices, actions, errors and server lines are told apart at a glance", async () => {
  const irc = await startIrcServer();
  const server = await startServer();
  const browser = await launchBrowser();
  const { context, page, errors } = await deskPage(browser);
  const people = new IrcPeople(irc.port);
  try {
    // bob joins first, so ngircd makes him the channel's operator and the user is not one.
    const bob = await people.add("bob", "#room");
    await danaInRoom(page, server.url, irc.port);
    await bob.waitForMember("#room", "dana");

    await bob.say("#room", "a plain message from bob");
    await bob.send("NOTICE #room :heads up, a notice from bob");
    await bob.say("#room", "\x01ACTION waves at everyone\x01");
    const chat = await look(page, "a plain message from bob");
    const notice = await look(page, "heads up, a notice from bob");
    const action = await look(page, "waves at everyone");
    // Not an operator: the server refuses, and the refusal shows where the user is.
    await sendLine(page, "/kick bob");
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
    await people.close();
    await context.close();
    await browser.close();
    await server.close();
    await irc.close();
  }
});

Deno.test("lines: channel events show live in the words their kinds declare", async () => {
  const irc = await startIrcServer();
  const server = await startServer();
  const browser = await launchBrowser();
  const { context, page, errors } = await deskPage(browser);
  const people = new IrcPeople(irc.port);
  const person = (nick: string) => people.add(nick);
  try {
    const bob = await people.add("bob", "#room");
    await danaInRoom(page, server.url, irc.port);
    await bob.waitForMember("#room", "dana");
    const [erin, frank, gus, carl] = [
      await person("erin"),
      await person("frank"),
      await person("gus"),
      await person("carl"),
    ];
    // bob speaks between the events, so none of them is folded into a run of joins and parts
    // (dana's own join among them).
    let n = 0;
    const shows = async (text: string) => {
      await page.locator(".line.event", { hasText: text }).last().waitFor();
      await apart();
    };
    const apart = async () => {
      await bob.say("#room", `between ${++n}`);
      await page.locator(".line", { hasText: `between ${n}` }).waitFor();
    };
    // carl shares #other with dana, not #room: his quit reaches her, and is not shown in #room.
    await carl.join("#other");
    await sendLine(page, "/join #other");
    await page.waitForURL("**/chat/irc-localhost/%23other");
    await carl.waitForMember("#other", "dana");
    await page.getByRole("link", { name: "#room" }).click();
    await page.waitForURL("**/chat/irc-localhost/%23room");
    await apart();
    for (const c of [erin, frank, gus]) {
      await c.join("#room");
      await shows(`${c.nick} joined`);
    }
    await erin.send("NICK erin2");
    await shows("erin is now known as erin2");
    await bob.send("KICK #room erin2 :enough");
    await shows("erin2 was kicked by bob (enough)");
    await gus.send("PART #room :later");
    await shows("gus left (later)");
    await carl.send("QUIT :elsewhere");
    await frank.send("QUIT :gone");
    // ngircd quotes a quit's reason.
    await shows('frank quit ("gone")');
    await bob.send("TOPIC #room :events in their words");
    await shows("bob changed the topic to: events in their words");
    await bob.send("MODE #room +v dana");
    await shows("bob sets mode +v dana");
    assertEquals(await page.locator(".line", { hasText: "carl" }).count(), 0);
    // Quiet lines: no nick column.
    assertEquals(await page.locator(".line.event .nick").count(), 0);

    // After a reload the same lines come from history (kept as fields), in the same words.
    await page.reload();
    await page.locator(".line", { hasText: `between ${n}` }).waitFor();
    for (
      const text of [
        "erin is now known as erin2",
        "erin2 was kicked by bob (enough)",
        "gus left (later)",
        'frank quit ("gone")',
        "bob changed the topic to: events in their words",
        "bob sets mode +v dana",
      ]
    ) {
      const line = page.locator(".line.event", { hasText: text }).last();
      await line.scrollIntoViewIfNeeded();
      await assertOnScreen(page, line);
    }
    // Not the English sentences history used to hold.
    for (const old of ["gus left: later", "erin2 was kicked by bob: enough", "set mode +v dana."]) {
      assertEquals(await page.getByText(old).count(), 0, old);
    }
    assertEquals(errors, []);
  } finally {
    await people.close();
    await context.close();
    await browser.close();
    await server.close();
    await irc.close();
  }
});
