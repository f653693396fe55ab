/**
 * Joining, topics and uploads in real Chromium against the real daemon and a real ngircd: the
 * add-connection form joins several channels; a connection's "Join a channel" dialog joins a
 * typed name or one found in the server's channel list (bounded, and saying so); a topic shows
 * who set it and when, and is edited in place where the user may; a file dropped on the messages
 * or an image pasted with the focus there is uploaded, its link naming the file.
 */
import { assert, assertEquals, assertStringIncludes } from "../support/assert.ts";
import { startServer } from "../support/server.ts";
import { startIrcServer } from "../support/ngircd.ts";
import {
  assertOnScreen,
  hasHorizontalOverflow,
  launchBrowser,
  screenshot,
} from "../support/browser.ts";
import {
  composer,
  connect,
  deskPage,
  fillConnection,
  IrcPeople,
  openConversation,
  register,
} from "../support/chat_page.ts";

// A 2x2 red PNG.
const PNG = Uint8Array.from(
  atob(
    "iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAFklEQVR4nGP8z8DAwMDAxMDAwMDAAAANHQEDasKb6QAAAABJRU5ErkJggg==",
  ),
  (c) => c.charCodeAt(0),
);

/** More channels than one /list answer holds, all named `#many…`. */
const MANY = 1100;

Deno.test("join a channel, topics with setter and in-place edit, drop and paste uploads", async (t) => {
  const irc = await startIrcServer();
  const server = await startServer();
  const browser = await launchBrowser();
  const { context, page, errors } = await deskPage(browser);
  const people = new IrcPeople(irc.port);
  try {
    // bob is first everywhere: he is the operator of #ops (+t) and #open (-t), and sets topics.
    const bob = await people.add("bob", "#ops", "#open", "#python", "#pythonistas", "#elsewhere");
    await bob.send("MODE #ops +t");
    await bob.send("MODE #open -t");
    await bob.send("TOPIC #ops :Welcome to ops");
    await bob.send("TOPIC #open :Anyone may change this");
    await bob.waitFor((l) => l.command === "TOPIC" && l.params[0] === "#open");
    // One person in each of MANY more channels (50 to a line, under IRC's 512 bytes): the list
    // is longer than an answer may hold.
    for (let i = 0; i < MANY; i += 50) {
      const names = Array.from({ length: 50 }, (_, j) => `#many${i + j}`);
      await bob.send(`JOIN ${names.join(",")}`);
    }
    await bob.waitFor((l) => l.command === "JOIN" && l.params[0] === `#many${MANY - 1}`);

    await t.step("the add-connection form joins several channels", async () => {
      await register(page, server.url, {
        email: "dana@example.com",
        password: "dana's long password",
      });
      await fillConnection(page, irc.port, { nick: "dana", channel: "#ops, #open #plain" });
      await connect(page);
      for (const name of ["#ops", "#open", "#plain"]) {
        await assertOnScreen(page, page.locator(".sidebar .conv", { hasText: name }));
      }
      await bob.waitForMember("#open", "dana");
      await bob.waitForMember("#ops", "dana");
    });

    await t.step("a connection's Join control joins a typed channel", async () => {
      const control = page.getByRole("button", { name: /^Join a channel on / });
      await assertOnScreen(page, control);
      await control.click();
      const dialog = page.getByRole("dialog", { name: /^Join a channel on / });
      await assertOnScreen(page, dialog);
      await dialog.getByLabel("Channel", { exact: true }).fill("typed");
      await dialog.getByLabel("Channel", { exact: true }).press("Enter");
      await page.waitForURL("**/chat/irc-localhost/%23typed");
      assertEquals(await dialog.count(), 0, "the dialog closed");
      await assertOnScreen(page, page.locator(".sidebar .conv", { hasText: "#typed" }));
    });

    await t.step("the dialog searches the server's list and joins a channel found", async () => {
      await page.getByRole("button", { name: /^Join a channel on / }).click();
      const dialog = page.getByRole("dialog", { name: /^Join a channel on / });
      await dialog.getByLabel("Channel", { exact: true }).fill("pyth");
      await dialog.getByRole("button", { name: "Search the server's channels" }).click();
      const found = dialog.getByRole("list", { name: "Channels found" });
      await assertOnScreen(page, found.getByRole("button", { name: /#pythonistas/ }));
      await assertOnScreen(page, found.getByRole("button", { name: /#python\b/ }).first());
      assertEquals(await found.getByRole("listitem").count(), 2, "only names with pyth");
      await assertOnScreen(page, dialog.getByText(/2 matching channels \(1,1\d\d listed\)/));
      await found.getByRole("button", { name: /#pythonistas/ }).click();
      await page.waitForURL("**/chat/irc-localhost/%23pythonistas");
      await bob.waitForMember("#pythonistas", "dana");
    });

    await t.step("a list longer than an answer holds is cut, and the dialog says so", async () => {
      await page.getByRole("button", { name: /^Join a channel on / }).click();
      const dialog = page.getByRole("dialog", { name: /^Join a channel on / });
      await dialog.getByLabel("Channel", { exact: true }).fill("many");
      await dialog.getByRole("button", { name: "Search the server's channels" }).click();
      await assertOnScreen(
        page,
        dialog.getByText(`The 1,000 most populated of ${MANY.toLocaleString("en")} matching`),
      );
      assertEquals(await dialog.getByText(/did not end in time/).count(), 0, "the list ended");
      // What is drawn is narrowed by typing on, without asking again.
      await assertOnScreen(page, dialog.getByText(/900 more: type more of the name/));
      const found = dialog.getByRole("list", { name: "Channels found" });
      const one = (await found.locator(".join-link .name").first().innerText()).trim();
      await dialog.getByLabel("Channel", { exact: true }).fill(one);
      await assertOnScreen(page, found.getByRole("button", { name: one }));
      assert(await found.getByRole("listitem").count() <= 11, `narrowed to names with ${one}`);
      await screenshot(page, "join-dialog");
      await dialog.getByRole("button", { name: "Cancel" }).click();
      assertEquals(await dialog.count(), 0, "the dialog closed");
    });

    await t.step(
      "a topic shows who set it and when; an operator-only one is not editable",
      async () => {
        await openConversation(page, "#ops");
        const header = page.locator(".topbar");
        await assertOnScreen(page, header.getByText("Welcome to ops"));
        const by = header.locator(".topic-by");
        await assertOnScreen(page, by);
        const year = String(new Date().getFullYear());
        assertStringIncludes(await by.innerText(), "Set by bob");
        assertStringIncludes(await by.innerText(), year);
        // dana is no operator of #ops, which is +t: nothing offers to edit the topic.
        await header.getByText("Welcome to ops").click();
        assertEquals(await header.getByRole("button", { name: "Edit the topic" }).count(), 0);
        assertEquals(await header.getByLabel("Topic", { exact: true }).count(), 0);
      },
    );

    await t.step("where the channel lacks +t, a click edits the topic in place", async () => {
      await openConversation(page, "#open");
      const header = page.locator(".topbar");
      await assertOnScreen(page, header.getByRole("button", { name: "Edit the topic" }));
      const topic = header.getByText("Anyone may change this");
      await assertOnScreen(page, topic);
      await topic.click();
      const input = header.getByLabel("Topic", { exact: true });
      await assertOnScreen(page, input);
      assertEquals(await input.inputValue(), "Anyone may change this");
      await input.fill("Dana was here");
      await input.press("Enter");
      const line = await bob.waitFor((l) =>
        l.command === "TOPIC" && l.params[1] === "Dana was here"
      );
      assertEquals(line.nick, "dana");
      await assertOnScreen(page, header.getByText("Dana was here"));
      await page.waitForFunction(() =>
        document.querySelector(".topbar .topic-by")?.textContent?.includes("Set by dana")
      );
      await assertOnScreen(page, header.locator(".topic-by", { hasText: "Set by dana" }));
      await screenshot(page, "topic-setter");
    });

    await t.step("a file dropped on the messages is uploaded, its link naming it", async () => {
      const box = composer(page);
      await box.fill("");
      await assertOnScreen(page, page.locator(".messages"));
      await page.evaluate(() => {
        const dt = new DataTransfer();
        dt.items.add(new File(["hello from dana"], "notes.txt", { type: "text/plain" }));
        const ev = new DragEvent("drop", { dataTransfer: dt, bubbles: true, cancelable: true });
        document.querySelector(".messages")!.dispatchEvent(ev);
      });
      await page.waitForFunction(() =>
        (document.querySelector("#composer-input") as HTMLTextAreaElement).value.includes("http")
      );
      const link = (await box.inputValue()).trim();
      assert(link.endsWith("/notes.txt"), `the link names the file: ${link}`);
      const body = await page.evaluate((u) => fetch(u).then((r) => r.text()), link);
      assertEquals(body, "hello from dana", "the named link opens the file");
      await box.press("Enter");
      const said = await bob.waitFor((l) => l.command === "PRIVMSG" && l.params[1].includes(link));
      assertStringIncludes(said.params[1], "notes.txt");
      await assertOnScreen(page, page.locator(".messages .line", { hasText: "notes.txt" }).last());
    });

    await t.step("an image pasted with the focus on the messages is uploaded", async () => {
      const box = composer(page);
      await box.fill("");
      await page.locator(".messages").focus();
      await page.evaluate((bytes) => {
        const dt = new DataTransfer();
        dt.items.add(new File([new Uint8Array(bytes)], "shot.png", { type: "image/png" }));
        const ev = new ClipboardEvent("paste", {
          clipboardData: dt,
          bubbles: true,
          cancelable: true,
        });
        document.querySelector(".messages")!.dispatchEvent(ev);
      }, [...PNG]);
      await page.waitForFunction(() =>
        (document.querySelector("#composer-input") as HTMLTextAreaElement).value.includes("http")
      );
      const link = (await box.inputValue()).trim();
      assert(link.endsWith("/shot.png"), `the link names the image: ${link}`);
      await assertOnScreen(page, box);
      await box.fill("");
    });

    await t.step(
      "on a phone: the topic and its setter fit, the drawer has the Join control",
      async () => {
        await page.setViewportSize({ width: 390, height: 844 });
        try {
          const header = page.locator(".topbar");
          await assertOnScreen(page, header.getByText("Dana was here"));
          await assertOnScreen(page, header.locator(".topic-by", { hasText: "Set by dana" }));
          assert(!(await hasHorizontalOverflow(page)), "no sideways scrolling at 390 px");
          // A long topic keeps most of the line; who set it gives up its width first.
          await bob.send(
            "TOPIC #open :Welcome to the room, read the rules at https://example.com/rules first",
          );
          const text = header.locator(".topic-text", { hasText: "Welcome to the room" });
          await text.waitFor();
          const width = async (l: typeof text) => (await l.boundingBox())?.width ?? 0;
          const [topicWidth, byWidth] = [
            await width(text),
            await width(header.locator(".topic-by")),
          ];
          assert(topicWidth > 3 * byWidth, `the topic ${topicWidth} px, who set it ${byWidth} px`);
          await page.getByRole("button", { name: "Open menu" }).click();
          const control = page.getByRole("button", { name: /^Join a channel on / });
          await assertOnScreen(page, control);
          await control.click();
          const dialog = page.getByRole("dialog", { name: /^Join a channel on / });
          await assertOnScreen(
            page,
            dialog.getByRole("button", { name: "Search the server's channels" }),
          );
          assert(!(await hasHorizontalOverflow(page)), "the dialog fits 390 px");
          await screenshot(page, "join-dialog-phone");
          await dialog.getByRole("button", { name: "Cancel" }).click();
        } finally {
          await page.setViewportSize({ width: 1280, height: 800 });
        }
      },
    );

    await t.step("no errors in the browser console", () => {
      assertEquals(errors, []);
    });
  } finally {
    await people.close();
    await context.close();
    await browser.close();
    await server.close();
    await irc.close();
  }
});
