/**
 * The web client minute to minute in a busy channel: the new-messages line and the unread count,
 * jumping to the first unread, nick menus, the quick switcher and the other keys, completion of
 * present nicks, closing, grouped members, away, search highlights and dates, readable words.
 * Real Chromium, the real daemon, a real ngircd with scripted people.
 */
import { Buffer } from "node:buffer";
import { assert, assertEquals, assertStringIncludes } from "../support/assert.ts";
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

/** How many unread messages bob leaves in #busy, with joins and parts among them. */
const UNREAD = 150;

/** The text of every chat line (not event lines) after the new-messages line. */
const linesAfterMarker = (page: Page) =>
  page.evaluate(() => {
    const out: string[] = [];
    let after = false;
    for (const li of document.querySelectorAll(".lines > li")) {
      if (li.classList.contains("new-marker")) after = true;
      else if (after && li.classList.contains("line") && !li.classList.contains("event")) {
        out.push(li.querySelector(".text")?.textContent ?? "");
      }
    }
    return out;
  });

Deno.test("web client: unread line, nick menu, keys, closing", async (t) => {
  const irc = await startIrcServer();
  // The send queue refills in milliseconds: the nick menu's commands go out at once.
  const server = await startServer({ env: { PARLEY_TEST_FAST_IRC: "1" } });
  const browser = await launchBrowser();
  const { context, page, errors } = await deskPage(browser);
  const people = new IrcPeople(irc.port);
  const box = composer(page);
  const send = (text: string) => sendLine(page, text);
  const open = (name: string) => openConversation(page, name);
  const here = () => decodeURIComponent(new URL(page.url()).pathname);
  try {
    // bob is first in each channel, so ngircd makes him their operator.
    const bob = await people.add("bob", "#busy", "#side", "#third");
    const carol = await people.add("carol", "#busy");
    const dave = await people.add("dave");

    await t.step("set up: erin registers and joins three channels", async () => {
      await registerAndConnect(page, server.url, irc.port, {
        email: "erin.k@example.com",
        password: "erin's long password",
        nick: "erin",
        channel: "#busy",
      });
      await bob.waitForMember("#busy", "erin");
      for (const c of ["#side", "#third"]) {
        await send(`/join ${c}`);
        await page.waitForURL(`**/chat/irc-localhost/${encodeURIComponent(c)}`);
        await bob.waitForMember(c, "erin");
      }
    });

    await t.step(
      "3: the new-messages line sits before the first unread, as many as counted",
      async () => {
        // erin looks at #side while #busy fills up with messages, joins, parts and nick changes.
        await open("#side");
        for (let i = 1; i <= UNREAD; i++) {
          await bob.say("#busy", `busy line ${i}`);
          if (i % 10 === 0) {
            await dave.join("#busy");
            await dave.send("PART #busy :brb");
          }
          if (i === 75) await carol.send("NICK carla");
          if (i === 76) await carol.send("NICK carol");
        }
        const badge = page.locator(".sidebar .conv", { hasText: "#busy" }).locator(".badge");
        await page.waitForFunction(
          (n) =>
            [...document.querySelectorAll(".sidebar .conv")].some((a) =>
              a.textContent?.includes("#busy") && a.querySelector(".badge")?.textContent === n
            ),
          String(UNREAD),
        ).catch(async () => assertEquals(await badge.textContent(), String(UNREAD)));
        const counted = Number(await badge.textContent());
        await open("#busy");
        // Opened at the newest message: the first unread is pages back, and a button goes there.
        const jump = page.getByRole("button", { name: `Jump to first unread (${counted})` });
        await assertOnScreen(page, jump);
        await jump.click();
        const marker = page.locator(".new-marker");
        await assertOnScreen(page, marker);
        await assertOnScreen(page, page.locator(".line .text", { hasText: /^busy line 1$/ }));
        const after = await linesAfterMarker(page);
        assertEquals(after.length, counted, "the line encloses what the sidebar counted");
        assertEquals(after[0], "busy line 1", "the first line after it is the first unread");
        assertEquals(after.at(-1), `busy line ${UNREAD}`);
        assertEquals(await jump.count(), 0, "the button is gone once there");
        await screenshot(page, "busy-channel");
        await page.getByRole("button", { name: "Jump to latest" }).click();
        await page.waitForFunction(() => {
          const el = document.querySelector(".messages")!;
          return el.scrollHeight - el.scrollTop - el.clientHeight < 40;
        });
        assertEquals(await jump.count(), 0, "and stays gone once the line was seen");
      },
    );

    await t.step("4: notifications can be dismissed; Alt+M goes to the next mention", async () => {
      await bob.say("#third", "erin: a question for you");
      await page.locator(".sidebar .conv", { hasText: "#third" }).locator(".badge.mention")
        .waitFor();
      await box.click();
      await page.keyboard.press("Alt+m");
      await page.waitForURL("**/chat/irc-localhost/%23third?around=*");
      // At the mention itself, marked.
      await assertOnScreen(page, page.locator(".line.focus", { hasText: "a question for you" }));
      await page.getByRole("link", { name: "Notifications" }).click();
      const item = page.locator(".results li", { hasText: "a question for you" });
      await assertOnScreen(page, item);
      await page.getByRole("button", { name: "Dismiss all" }).click();
      await assertOnScreen(page, page.getByText("No mentions yet."));
      await page.reload();
      await assertOnScreen(page, page.getByText("No mentions yet."));
    });

    await t.step(
      "5: quick switcher, next and previous, next unread, formatting, help",
      async () => {
        await open("#busy");
        await page.keyboard.press("Control+k");
        const switcher = page.getByRole("dialog", { name: "Go to" });
        await assertOnScreen(page, switcher);
        await page.keyboard.type("thi");
        await assertOnScreen(page, switcher.getByRole("option", { name: /#third/ }));
        await screenshot(page, "quick-switcher");
        await page.keyboard.press("Enter");
        await page.waitForURL("**/chat/irc-localhost/%23third");
        assertEquals(await switcher.count(), 0, "the switcher closes on Enter");

        await page.getByLabel("Message", { exact: true }).focus();
        await page.keyboard.press("Alt+j");
        await assertOnScreen(page, switcher);
        await page.keyboard.press("Escape");
        assertEquals(await switcher.count(), 0, "Escape closes it");
        assertEquals(
          await page.evaluate(() => document.activeElement?.id),
          "composer-input",
          "the focus is back in the message box",
        );

        // Sidebar order: server, #busy, #side, #third.
        await page.keyboard.press("Alt+ArrowUp");
        await page.waitForURL("**/chat/irc-localhost/%23side");
        await page.keyboard.press("Alt+ArrowDown");
        await page.waitForURL("**/chat/irc-localhost/%23third");
        await bob.say("#side", "something new on the side");
        await page.locator(".sidebar .conv", { hasText: "#side" }).locator(".badge").waitFor();
        // The next conversation with unread skips #busy (read) and wraps around to #side.
        await page.keyboard.press("Alt+Shift+ArrowDown");
        await page.waitForURL("**/chat/irc-localhost/%23side");

        await box.click();
        await page.keyboard.type("plain ");
        await page.keyboard.press("Control+b");
        await page.keyboard.type("bold");
        await page.keyboard.press("Control+b");
        await page.keyboard.type(" ");
        await page.keyboard.press("Control+u");
        await page.keyboard.type("under");
        await page.keyboard.press("Control+i");
        await page.keyboard.type("it");
        assertEquals(await box.inputValue(), "plain \x02bold\x02 \x1funder\x1dit");
        await box.press("Enter");
        const bold = page.locator(".line .text .b", { hasText: "bold" }).last();
        await assertOnScreen(page, bold);
        await assertOnScreen(page, page.locator(".line .text .u.i", { hasText: "it" }).last());
        assertEquals(
          (await bob.waitFor((l) => l.params[1]?.includes("bold") ?? false)).params[1],
          "plain \x02bold\x02 \x1funder\x1dit",
        );

        await send("/help keys");
        const keys = page.getByRole("dialog", { name: "Keyboard shortcuts" });
        await assertOnScreen(page, keys);
        assertStringIncludes((await keys.textContent()) ?? "", "Ctrl+K");
        await page.keyboard.press("Escape");
        assertEquals(await keys.count(), 0);
        await page.locator(".messages").click({ position: { x: 5, y: 5 } });
        await page.keyboard.press("?");
        await assertOnScreen(page, keys);
        await page.keyboard.press("Escape");
      },
    );

    await t.step(
      "6: Tab completes present nicks, recent speakers first, then channels",
      async () => {
        await open("#busy");
        const bobby = await people.add("bobby");
        await bobby.join("#busy");
        await dave.join("#busy");
        await dave.send("NICK dave2");
        await dave.send("PART #busy");
        await bob.waitForMember("#busy", "bobby");
        await bobby.say("#busy", "bobby speaks");
        await page.locator(".line", { hasText: "bobby speaks" }).waitFor();
        await bob.say("#busy", "bob speaks last");
        await page.locator(".line", { hasText: "bob speaks last" }).waitFor();
        await page.waitForFunction(() =>
          document.querySelector(".members")?.textContent?.includes("bobby")
        );
        await page.waitForFunction(() =>
          !document.querySelector(".members")?.textContent?.includes("dave")
        );
        const valueIs = async (want: string) => {
          await page.waitForFunction(
            (want) =>
              (document.querySelector("#composer-input") as HTMLTextAreaElement).value === want,
            want,
            { timeout: 2000 },
          ).catch(() => {});
          return await box.inputValue();
        };
        const tab = async (typed: string, want: string) => {
          await box.fill(typed);
          await box.press("Tab");
          return await valueIs(want);
        };
        assertEquals(await tab("bo", "bob: "), "bob: ", "the most recent speaker first");
        await box.press("Tab");
        assertEquals(await valueIs("bobby: "), "bobby: ");
        assertEquals(await tab("da", "da"), "da", "who left is not offered, nor their old nick");
        assertEquals(await tab("hi thi", "hi #third "), "hi #third ", "channels after nicks");
        await box.fill("");
      },
    );

    await t.step("1: a nick menu in the member list and in messages", async () => {
      const panel = page.getByRole("complementary", { name: "Members" });
      await panel.getByRole("button", { name: "bob", exact: true }).click();
      const menu = page.getByRole("menu", { name: "Actions for bob" });
      await assertOnScreen(page, menu);
      assertEquals(
        await menu.getByRole("menuitem", { name: "Kick" }).count(),
        0,
        "not an operator",
      );
      await menu.getByRole("menuitem", { name: "Who is this?" }).click();
      const whois = page.getByRole("table", { name: "Whois bob" });
      // In view with no scrolling: the list follows the newest line (following_test.ts).
      await assertOnScreen(page, whois).catch(async (e) => {
        // What was shown instead (an answer that came too late says so in a line).
        const last = await page.locator(".messages .line").evaluateAll((ls) =>
          ls.slice(-4).map((l) => l.textContent)
        );
        throw new Error(`${e.message}\nat ${here()}, the last lines: ${JSON.stringify(last)}`);
      });
      assertEquals(here(), "/chat/irc-localhost/#busy", "shown where the user is");

      await bob.send("MODE #busy +o erin");
      await page.getByText("bob sets mode +o erin").waitFor();
      const line = page.locator(".line", { hasText: "bob speaks last" }).locator(".nick");
      await line.click({ button: "right" });
      await assertOnScreen(page, menu);
      await assertOnScreen(page, menu.getByRole("menuitem", { name: "Kick" }));
      await page.keyboard.press("Escape");

      await panel.getByRole("button", { name: "carol", exact: true }).click();
      const carolMenu = page.getByRole("menu", { name: "Actions for carol" });
      await assertOnScreen(page, carolMenu);
      await screenshot(page, "nick-menu");
      await carolMenu.getByRole("menuitem", { name: "Make operator" }).click();
      await bob.waitFor((l) => l.command === "MODE" && l.params.join(" ") === "#busy +o carol");
      await panel.getByRole("button", { name: "carol", exact: true }).click();
      await carolMenu.getByRole("menuitem", { name: "Give voice" }).click();
      await bob.waitFor((l) => l.command === "MODE" && l.params.join(" ") === "#busy +v carol");
      await panel.getByRole("button", { name: "carol", exact: true }).click();
      await carolMenu.getByRole("menuitem", { name: "Ban" }).click();
      // /ban: by ident and host, as the server tells who carol is.
      await bob.waitFor((l) =>
        l.command === "MODE" && /^#busy \+b \*!\*carol@\S+$/.test(l.params.join(" "))
      );
      await panel.getByRole("button", { name: "carol", exact: true }).click();
      await carolMenu.getByRole("menuitem", { name: "Kick" }).click();
      await bob.waitFor((l) => l.command === "KICK" && l.params[1] === "carol");

      await panel.getByRole("button", { name: "bobby", exact: true }).click();
      await page.getByRole("menu", { name: "Actions for bobby" })
        .getByRole("menuitem", { name: "Private conversation" }).click();
      await page.waitForURL("**/chat/irc-localhost/bobby");
    });

    await t.step("11: members grouped by rank, with counts", async () => {
      await open("#busy");
      await bob.send("MODE #busy +v bobby");
      const panel = page.getByRole("complementary", { name: "Members" });
      const group = (name: string) => panel.locator(".member-group-title", { hasText: name });
      await assertOnScreen(page, group("Operators"));
      await page.waitForFunction(() =>
        document.querySelector(".member-group.voice .member-group-title")?.textContent?.includes(
          "1",
        )
      );
      assertEquals((await group("Operators").textContent())?.replace(/\s+/g, " "), "Operators 2");
      await assertOnScreen(page, group("Voiced"));
      assertEquals(
        await panel.getByRole("list", { name: "Voiced" }).textContent(),
        "+bobby",
      );
      // Who is away shows once known: here from the whois the nick menu asks for.
      await bob.send("AWAY :lunch");
      await bob.waitFor((l) => l.command === "306");
      await panel.getByRole("button", { name: "bob", exact: true }).click();
      await page.getByRole("menu", { name: "Actions for bob" })
        .getByRole("menuitem", { name: "Who is this?" }).click();
      await assertOnScreen(page, panel.locator("li.away", { hasText: "bob" }).locator(".away-tag"));
      await bob.send("AWAY");
    });

    await t.step(
      "10: a close control per conversation; after closing, a live one opens",
      async () => {
        await goLive(page, server.url + "/chat/irc-localhost/bobby");
        const entry = page.locator(".sidebar li", { hasText: "bobby" });
        await entry.hover();
        const close = page.getByRole("button", { name: "Close bobby" });
        await assertOnScreen(page, close);
        await close.click();
        await page.waitForFunction(() => !location.pathname.endsWith("/bobby"));
        assertEquals(await entry.count(), 0, "the private conversation is gone");
        await assertOnScreen(page, box);

        await open("#third");
        await send("/close");
        await page.waitForFunction(() => !location.pathname.endsWith("%23third"));
        assert(["/chat/irc-localhost/#busy", "/chat/irc-localhost/#side"].includes(here()), here());
        await bob.waitFor((l) => l.command === "PART" && l.params[0] === "#third");
      },
    );

    await t.step("17: away is shown until the user is back", async () => {
      await open("#busy");
      await send("/away fishing");
      const banner = page.locator(".away-line");
      await assertOnScreen(page, banner);
      assertStringIncludes((await banner.textContent()) ?? "", "fishing");
      const members = page.getByRole("complementary", { name: "Members" });
      await assertOnScreen(
        page,
        members.locator("li.away", { hasText: "erin" }).locator(".away-tag"),
      );
      await open("#side");
      await assertOnScreen(page, banner);
      await send("back from the lake");
      await page.locator(".line", { hasText: "back from the lake" }).waitFor();
      await banner.waitFor({ state: "detached" });
      await page.getByText("You are no longer marked as away.").waitFor();
      // erin is back on IRC too: a line sent after it reaches bob after the AWAY that ended it,
      // so bob's WHOIS then gets no away reply.
      await send("after the away");
      await bob.waitFor((l) => l.command === "PRIVMSG" && l.params[1] === "after the away");
      const from = bob.lines.length;
      await bob.send("WHOIS erin");
      await bob.waitFor((l) => l.command === "318" && bob.lines.indexOf(l) >= from);
      const away = bob.lines.slice(from).some((l) => l.command === "301");
      assert(!away, "not away any more");
    });

    await t.step("12: 24-hour times in lists, topic links, one notification choice", async () => {
      await bob.send("TOPIC #busy :Rules at https://example.com/rules please");
      await open("#busy");
      const link = page.locator(".topbar .topic a[href='https://example.com/rules']");
      await assertOnScreen(page, link);

      // The clock is the user's setting, kept by the server.
      const clock = async (on: boolean) => {
        await goLive(page, server.url + "/settings/account");
        const saved = page.waitForResponse((r) =>
          r.url().endsWith("/api/client-settings") && r.request().method() === "POST"
        );
        await page.getByRole("checkbox", { name: "24-hour clock" }).setChecked(on);
        await saved;
      };
      await clock(false);
      await page.goto(server.url + "/chat/search?q=busy");
      const time = page.locator(".results time").first();
      await assertOnScreen(page, time);
      assert(/AM|PM/.test((await time.textContent()) ?? ""), await time.textContent() ?? "");
      await clock(true);
      await page.goto(server.url + "/chat/search?q=busy");
      await assertOnScreen(page, time);
      assert(!/AM|PM/.test((await time.textContent()) ?? ""), await time.textContent() ?? "");

      await page.goto(server.url + "/settings/account");
      await page.getByLabel("Enable notifications").scrollIntoViewIfNeeded();
      await assertOnScreen(page, page.getByLabel("Enable notifications"));
      assertEquals(await page.getByText("Desktop notifications for mentions").count(), 0);
    });

    await t.step("12: the Uploaded notice does not cover the last line", async () => {
      await goLive(page, server.url + "/chat/irc-localhost/%23busy");
      await page.locator(".line", { hasText: "bob speaks last" }).waitFor();
      await page.locator("input[type=file]").setInputFiles({
        name: "note.txt",
        mimeType: "text/plain",
        buffer: Buffer.from("a note"),
      });
      const notice = page.getByRole("status").filter({ hasText: "Uploaded." });
      await assertOnScreen(page, notice);
      await assertOnScreen(page, page.locator(".lines > li").last());
      // Not over the messages at all: any line there may be the one being read.
      const overlap = await page.evaluate(() => {
        const a = [...document.querySelectorAll("[role=status]")]
          .find((e) => e.textContent === "Uploaded.")!.getBoundingClientRect();
        const b = document.querySelector(".messages")!.getBoundingClientRect();
        return a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
      });
      assert(!overlap, "the notice lies over the messages");
      await box.fill("");
    });

    await t.step("18: search highlights the words found and takes a date range", async () => {
      await page.goto(server.url + "/chat/search?q=" + encodeURIComponent("busy line 42"));
      const mark = page.locator(".results mark", { hasText: "42" }).first();
      await assertOnScreen(page, mark);
      const today = await page.evaluate(() => {
        const d = new Date();
        return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, "0")}-${
          String(d.getDate()).padStart(2, "0")
        }`;
      });
      const tomorrow = await page.evaluate(() => {
        const d = new Date(Date.now() + 86400_000);
        return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, "0")}-${
          String(d.getDate()).padStart(2, "0")
        }`;
      });
      await page.getByLabel("From").fill(tomorrow);
      await page.getByRole("button", { name: "Search" }).last().click();
      await assertOnScreen(page, page.getByText("Nothing found."));
      await page.getByLabel("From").fill(today);
      await page.getByLabel("To").fill(today);
      await page.getByRole("button", { name: "Search" }).last().click();
      await assertOnScreen(page, page.locator(".results mark").first());
    });

    await t.step("8: connection names, never ids, in search and settings", async () => {
      const heading = page.locator(".result-group h2").first();
      await assertOnScreen(page, heading);
      assert(!(await heading.textContent())!.includes("irc-localhost"), "no id in search");
      await page.goto(server.url + "/settings/conversation/irc-localhost/%23busy");
      const sub = page.locator(".topbar .topic");
      await assertOnScreen(page, sub);
      assert(!(await sub.textContent())!.includes("irc-localhost"), "no id in settings");
      await goLive(page, server.url + "/chat/irc-localhost/%23busy");
      await send("/disconnect");
      await assertOnScreen(page, page.locator(".sidebar .conn-why", { hasText: "disconnected" }));
      const problem = page.locator(".conn-problem");
      await assertOnScreen(page, problem);
      assertEquals(
        await problem.textContent(),
        "Not connected: You disconnected it. /connect connects it again.",
      );
      await send("hello while down");
      const notSent = page.locator(".line.event.error", { hasText: "Not sent" }).last();
      await assertOnScreen(page, notSent);
      assert(
        !(await notSent.textContent())!.includes("irc-localhost"),
        await notSent.textContent() ?? "",
      );
      await send("/connect");
    });

    await t.step(
      "8: the invite page reads as an invitation; a bad link in Parley's words",
      async () => {
        await page.goto(server.url + "/settings/users");
        await page.getByLabel("Email").fill("dana@example.com");
        await page.getByRole("button", { name: "Create invite link" }).click();
        const url = (await page.getByLabel("Invite link").inputValue())
          .replace(/^https?:\/\/[^/]+/, server.url);
        const other = await browser.newContext({ viewport: { width: 1280, height: 800 } });
        const { page: dana, errors: danaErrors } = await newPage(other);
        await dana.goto(url.replace(/token=[^&]+/, "token=not-the-token"));
        await assertOnScreen(dana, dana.getByText("You are invited to join Parley."));
        await dana.getByLabel("Password", { exact: true }).fill("dana's long password");
        await dana.getByRole("button", { name: "Save password" }).click();
        const error = dana.getByText(/invite link was used already or is too old/);
        await assertOnScreen(dana, error);
        assert(!(await dana.locator("main").textContent())!.includes("Convos"), "never Convos");
        await other.close();
        // The refused link answers 401: that line is the only one in the console.
        assert(danaErrors.every((e) => / 401 /.test(e)), danaErrors.join("\n"));
      },
    );

    await t.step("phone: close controls without hover, the nick menu as a sheet", async () => {
      const phone = await browser.newContext({
        viewport: { width: 390, height: 844 },
        storageState: await context.storageState(),
      });
      const { page: p, errors: phoneErrors } = await newPage(phone);
      await p.goto(server.url + "/chat/irc-localhost/%23busy");
      await p.getByRole("button", { name: "Open menu" }).click();
      await assertOnScreen(p, p.getByRole("button", { name: "Close #side" }));
      // The drawer has slid in all the way before the picture is taken.
      await p.waitForFunction(() =>
        document.querySelector(".sidebar")!.getBoundingClientRect().left === 0 &&
        !document.getAnimations().length
      );
      await screenshot(p, "phone-sidebar");
      await p.keyboard.press("Escape");
      // With the drawer closed, nothing of it shows at the edge of the screen.
      await p.waitForFunction(() => !document.querySelector(".sidebar.open"));
      await p.locator(".sidebar").evaluate((el) =>
        Promise.all(el.getAnimations({ subtree: true }).map((a) => a.finished))
      );
      // Hidden as a whole: a part left visible shows its edge or shadow beside the screen.
      const peeking = await p.evaluate(() =>
        [...document.querySelectorAll(".sidebar *")]
          .filter((el) => getComputedStyle(el).visibility === "visible")
          .map((el) => el.outerHTML.slice(0, 60))
      );
      assertEquals(peeking, [], "parts of the closed drawer on screen");
      await p.getByRole("button", { name: "Members" }).click();
      const panel = p.getByRole("complementary", { name: "Members" });
      await panel.getByRole("button", { name: "bob", exact: true }).click();
      const menu = p.getByRole("menu", { name: "Actions for bob" });
      await assertOnScreen(p, menu.getByRole("menuitem", { name: "Who is this?" }));
      await screenshot(p, "phone-nick-menu");
      assertEquals(phoneErrors, []);
      await phone.close();
    });

    await t.step("no errors in the browser console", () => {
      assertEquals(errors, []);
    });
  } finally {
    await screenshot(page, "unread-keys-last").catch(() => {});
    await people.close();
    await context.close();
    await browser.close();
    await server.close();
    await irc.close();
  }
});
