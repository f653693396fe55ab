/** Files in the web client: upload by button, paste and drop, inline previews, list and delete. */
import { assert, assertEquals, assertStringIncludes } from "../support/assert.ts";
import { diagnose, startServer } from "../support/server.ts";
import { startIrcServer } from "../support/ngircd.ts";
import { RawIrcClient } from "../support/irc_client.ts";
import { Buffer } from "node:buffer";
import { assertOnScreen, launchBrowser, newPage, screenshot } from "../support/browser.ts";
import { connect, fillConnection, goLive, register, sendLine } from "../support/chat_page.ts";

// A 2x2 red PNG.
const PNG = Uint8Array.from(
  atob(
    "iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAFklEQVR4nGP8z8DAwMDAxMDAwMDAAAANHQEDasKb6QAAAABJRU5ErkJggg==",
  ),
  (c) => c.charCodeAt(0),
);

Deno.test("web client files: upload, paste, drop, preview, list, delete", async (t) => {
  const irc = await startIrcServer();
  const server = await startServer();
  const browser = await launchBrowser();
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const { page, errors } = await newPage(context);
  let bob: RawIrcClient | undefined;
  try {
    await t.step("set up: a user in a channel with a raw IRC client", async () => {
      // The default profile is answered late, as by a slow server: the form must not be
      // typed into before it is filled in, or the typing mixes with the profile's host.
      await page.route("**/api/connection-profiles", async (route) => {
        await new Promise((r) => setTimeout(r, 800));
        await route.continue();
      });
      await register(page, server.url, {
        email: "dora@example.com",
        password: "dora's long password",
      });
      const host = page.getByLabel("Host", { exact: true });
      await host.waitFor();
      assertEquals(await host.inputValue(), "irc.libera.chat", "shown filled in, not empty");
      await page.unroute("**/api/connection-profiles");
      await fillConnection(page, irc.port, { nick: "dora", channel: "#files" });
      await connect(page);
      await page.locator(".conn .dot.connected").waitFor();
      await page.getByRole("link", { name: "#files" }).click();
      await assertOnScreen(page, page.getByLabel("Message", { exact: true }));
      bob = await RawIrcClient.connect(irc.port, "bob");
      // Parley shows the channel before the server has confirmed its JOIN; wait for that.
      await bob.waitForMember("#files", "dora").catch((err) => {
        throw new Error(`${err.message}\n${diagnose(server.output(), irc.output())}`);
      });
      await bob.join("#files");
      // Parley saw bob join: he is in the channel's member list (the join line itself may be
      // collapsed with dora's own into "2 joined").
      await page.getByRole("complementary", { name: "Members" }).getByRole("listitem")
        .filter({ hasText: "bob" }).waitFor();
    });

    await t.step("the upload button puts the file's link into the message box", async () => {
      await page.locator(".composer input[type=file]").setInputFiles({
        name: "red.png",
        mimeType: "image/png",
        buffer: Buffer.from(PNG),
      });
      const box = page.getByLabel("Message", { exact: true });
      await page.waitForFunction(() =>
        (document.querySelector("#composer-input") as HTMLTextAreaElement).value.includes("/")
      );
      const url = (await box.inputValue()).trim();
      assert(/^https?:\/\//.test(url), `an absolute link: ${url}`);
      await box.press("Enter");
      const line = await bob!.waitFor((l) => l.command === "PRIVMSG" && l.params[1].includes(url));
      assertStringIncludes(line.params[1], url);
      const img = page.locator(".line .embed.image img").last();
      await assertOnScreen(page, img);
      await page.waitForFunction(() =>
        [...document.querySelectorAll(".embed.image img")].some((i) =>
          (i as HTMLImageElement).naturalWidth === 2
        )
      );
      await screenshot(page, "chat-image");
    });

    await t.step("pasting an image and dropping a file upload them too", async () => {
      const box = page.getByLabel("Message", { exact: true });
      await box.fill("");
      await page.evaluate((bytes) => {
        const dt = new DataTransfer();
        dt.items.add(new File([new Uint8Array(bytes)], "pasted.png", { type: "image/png" }));
        const ev = new ClipboardEvent("paste", {
          clipboardData: dt,
          bubbles: true,
          cancelable: true,
        });
        document.querySelector("#composer-input")!.dispatchEvent(ev);
      }, [...PNG]);
      await page.waitForFunction(() =>
        (document.querySelector("#composer-input") as HTMLTextAreaElement).value.includes("http")
      );
      await box.fill("");
      await page.evaluate(() => {
        const dt = new DataTransfer();
        dt.items.add(new File(["hello"], "notes.txt", { type: "text/plain" }));
        const ev = new DragEvent("drop", { dataTransfer: dt, bubbles: true, cancelable: true });
        document.querySelector(".composer")!.dispatchEvent(ev);
      });
      await page.waitForFunction(() =>
        (document.querySelector("#composer-input") as HTMLTextAreaElement).value.includes("http")
      );
      await box.fill("");
    });

    await t.step("the files screen lists the uploads, opens and deletes them", async () => {
      await page.getByRole("link", { name: "Files", exact: true }).click();
      await page.waitForURL("**/settings/files");
      await assertOnScreen(page, page.getByRole("heading", { name: "Files" }).first());
      await assertOnScreen(page, page.locator(".file-list li", { hasText: "red.png" }));
      await page.locator(".file-list li", { hasText: "notes.txt" }).waitFor();
      assertEquals(await page.locator(".file-list li").count(), 3);
      // What the files take, against the server's bound (dora registered first: the admin).
      const setBound = (n: number) =>
        page.evaluate(async (n) => {
          const res = await fetch("/api/settings", {
            method: "POST",
            headers: { "Content-Type": "application/json" },
            body: JSON.stringify({ max_file_bytes_per_user: n }),
          });
          if (!res.ok) throw new Error(`settings: ${res.status}`);
        }, n);
      await setBound(10_000);
      await page.reload();
      const usage = page.locator(".file-usage");
      await assertOnScreen(page, usage.getByRole("meter", { name: "Your files" }));
      const bytes = 2 * PNG.length + "hello".length;
      assertStringIncludes(await usage.innerText(), `${bytes} B used of 10 kB`);
      assertEquals(
        await usage.getByRole("meter").getAttribute("aria-valuenow"),
        String(Math.round(bytes / 100)),
      );
      await screenshot(page, "files");
      const href = await page.locator(".file-list li", { hasText: "notes.txt" }).locator("a")
        .getAttribute("href");
      const res = await fetch(server.url + href);
      assertEquals(await res.text(), "hello");
      page.once("dialog", (d) => d.accept());
      await page.getByRole("button", { name: "Delete notes.txt" }).click();
      await page.locator(".file-list li", { hasText: "notes.txt" }).waitFor({ state: "detached" });
      await page.waitForFunction(
        (b) => document.querySelector(".file-usage")?.textContent?.includes(`${b} B used`),
        bytes - 5,
      );
      // With no bound, only what they take.
      await setBound(0);
      await page.reload();
      await usage.waitFor({ state: "detached" });
      await assertOnScreen(page, page.getByText(`${bytes - 5} B stored`));
      await page.locator(".file-list li", { hasText: "red.png" }).waitFor();
      assertEquals(await page.locator(".file-list li", { hasText: "notes.txt" }).count(), 0);
    });

    await t.step("a long message goes out as its first line, its size and a link", async () => {
      await goLive(page, server.url + "/chat/irc-localhost/%23files");
      await sendLine(page, "the build log follows\n" + "step ok\n".repeat(20));
      const got = await bob!.waitFor((l) =>
        l.command === "PRIVMSG" && l.params[1].startsWith("the build log")
      );
      assertStringIncludes(got.params[1], "the build log follows… (21 lines, 181 B) http");
      const line = page.locator(".line", { hasText: "the build log follows… (21 lines, 181 B)" });
      await assertOnScreen(page, line);
      const href = await line.locator("a[href*='/file/']:not(.embed)").getAttribute("href");
      const text = await (await fetch(href!)).text();
      assertStringIncludes(text, "step ok\nstep ok");
    });

    await t.step("no errors in the browser console", () => {
      assertEquals(errors, []);
    });
  } finally {
    await bob?.close();
    await context.close();
    await browser.close();
    await server.close();
    await irc.close();
  }
});
