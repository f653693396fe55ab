/**
 * A channel detached from IRC clients, in real Chromium against the real daemon and a real ngircd:
 * the conversation's settings detach it, the sidebar shows it dimmed at the end of its network's
 * list (in view, and after a reload: the server keeps it), and the same control reattaches it.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { startServer } from "../support/server.ts";
import { startIrcServer } from "../support/ngircd.ts";
import { RawIrcClient } from "../support/irc_client.ts";
import { assertOnScreen, launchBrowser, newPage } from "../support/browser.ts";
import { registerAndConnect, sendLine, untilApi } from "../support/chat_page.ts";

Deno.test("conversations: a channel detached from IRC clients", async (t) => {
  const irc = await startIrcServer();
  const server = await startServer({ env: { PARLEY_TEST_FAST_IRC: "1" } });
  const browser = await launchBrowser();
  const desk = await browser.newContext({
    viewport: { width: 1280, height: 800 },
    serviceWorkers: "block",
  });
  const { page, errors } = await newPage(desk);
  const bob = await RawIrcClient.connect(irc.port, "bob");
  /** The sidebar's channel names, in order. */
  const order = () => page.locator(".sidebar .conn li .conv .label").allTextContents();
  const settings = `${server.url}/settings/conversation/irc-localhost/${
    encodeURIComponent("#alpha")
  }`;
  type Listed = { conversations: { name: string; detached?: boolean }[] };
  const detachedOnServer = (want: boolean) =>
    untilApi<Listed>(
      page,
      "/api/conversations",
      (b) => b.conversations.some((c) => c.name === "#alpha" && c.detached === want),
    );
  try {
    for (const c of ["#alpha", "#beta", "#gamma"]) await bob.join(c);
    await registerAndConnect(page, server.url, irc.port, {
      email: "gil@example.com",
      password: "gil's long password",
      nick: "gil",
      channel: "#alpha",
    });
    await bob.waitForMember("#alpha", "gil");
    for (const c of ["#beta", "#gamma"]) {
      await sendLine(page, `/join ${c}`);
      await page.waitForURL(`**/chat/irc-localhost/${encodeURIComponent(c)}`);
      await bob.waitForMember(c, "gil");
    }
    assertEquals((await order()).slice(0, 1), ["#alpha"]);

    await t.step("the settings detach it: dimmed, at the end, in view", async () => {
      await page.goto(settings);
      const check = page.getByLabel("Detached from IRC clients");
      await assertOnScreen(page, check);
      assertEquals(await check.isChecked(), false);
      await check.check();
      await detachedOnServer(true);
      await page.waitForFunction(() =>
        [...document.querySelectorAll(".sidebar li.detached .conv")].some((a) =>
          a.textContent?.includes("#alpha") && Number(getComputedStyle(a).opacity) < 1
        )
      );
      const names = await order();
      assertEquals(names.at(-1), "#alpha", names.join(" "));
      await assertOnScreen(page, page.locator(".sidebar li.detached .conv", { hasText: "#alpha" }));
    });

    await t.step("the server keeps it: after a reload it is still detached", async () => {
      await page.reload();
      await page.locator(".sidebar li.detached .conv", { hasText: "#alpha" }).waitFor();
      assertEquals((await order()).at(-1), "#alpha");
      assert(await page.getByLabel("Detached from IRC clients").isChecked());
    });

    await t.step("the same control reattaches it", async () => {
      await page.getByLabel("Detached from IRC clients").uncheck();
      await detachedOnServer(false);
      await page.locator(".sidebar li.detached").waitFor({ state: "detached" });
      assertEquals((await order())[0], "#alpha");
    });
    assertEquals(errors, []);
  } finally {
    await bob.close().catch(() => {});
    await browser.close();
    await server.close();
    await irc.close();
  }
});
