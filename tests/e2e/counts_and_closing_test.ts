/**
 * Counts and closing in the web client, in real Chromium against the real daemon and a real
 * ngircd: the mention badge counts unread mentions only (after a reload too), × closes a channel
 * on every device, the user's own join shows once, a draft saved slowly never outlives the line
 * sent, and the member list says it is unknown while the connection is down.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { ApiClient } from "../support/api.ts";
import { startServer } from "../support/server.ts";
import { startIrcServer } from "../support/ngircd.ts";
import { assertOnScreen, launchBrowser, newPage, type Page } from "../support/browser.ts";
import {
  composer,
  connect,
  deskPage,
  fillConnection,
  goLive,
  IrcPeople,
  openConversation,
  register,
  sendLine,
} from "../support/chat_page.ts";
import { poll } from "../support/poll.ts";

const ALICE = { email: "alice@example.com", password: "alice's long password" };
const BASE = "/api/connection/irc-localhost/conversation";

/** A sidebar entry, by the conversation's name. */
const entry = (page: Page, name: string) =>
  page.locator(".sidebar li").filter({
    has: page.locator(".conv .label").getByText(name, { exact: true }),
  });

/** Clicks a conversation's × (shown on hover, as a mouse user meets it). */
async function closeFromSidebar(page: Page, name: string): Promise<void> {
  await entry(page, name).hover();
  await page.getByRole("button", { name: `Close ${name}` }).click();
}
const badge = (page: Page, name: string) => entry(page, name).locator(".badge.mention");

/** Resolves after the page has rendered what it has (two animation frames). */
const rendered = (page: Page) =>
  page.evaluate(() =>
    new Promise<void>((r) => requestAnimationFrame(() => requestAnimationFrame(() => r())))
  );

Deno.test("web client: mention counts, closing, one join line, drafts, members while down", async (t) => {
  const irc = await startIrcServer();
  const server = await startServer();
  const browser = await launchBrowser();
  const { context, page, errors } = await deskPage(browser);
  // The user's other device: a phone, where the sidebar is a drawer and × is always shown.
  const phoneContext = await browser.newContext({
    viewport: { width: 390, height: 844 },
    serviceWorkers: "block",
  });
  const phone = { context: phoneContext, ...await newPage(phoneContext) };
  const people = new IrcPeople(irc.port);
  const api = new ApiClient(server.url);

  // The page's /events socket, passed through; a `join` of `holdJoin` waits for `joinGate`
  // (frames keep their order), so a test can have it arrive while a history page loads.
  let holdJoin = "";
  let joinGate = Promise.resolve();
  await page.routeWebSocket(/\/events$/, (ws) => {
    const srv = ws.connectToServer();
    let order = Promise.resolve();
    ws.onMessage((m) => srv.send(m));
    srv.onMessage((m) => {
      order = order.then(async () => {
        const text = String(m);
        if (
          holdJoin && text.includes('"type":"join"') &&
          text.includes(`"conversation_id":"${holdJoin}"`)
        ) await joinGate;
        ws.send(m);
      });
    });
  });

  try {
    const bob = await people.add("bob", "#busy");
    await register(page, server.url, ALICE);
    await fillConnection(page, irc.port, { nick: "alice", channel: "#busy" });
    await connect(page);
    await bob.waitForMember("#busy", "alice");
    await api.login(ALICE.email, ALICE.password);

    await t.step("the mention badge counts unread mentions only, after a reload too", async () => {
      await bob.say("#busy", "alice: the first one");
      await badge(page, "#busy").waitFor();
      // Opening marks it read; lines the server gets before that request count as read too
      // (Convos's operation has no position to read up to), so the next ones wait for its answer.
      const read = page.waitForResponse((r) =>
        r.request().method() === "POST" && new URL(r.url()).pathname.endsWith("/read")
      );
      await openConversation(page, "#busy");
      await badge(page, "#busy").waitFor({ state: "detached" });
      await read;
      // Read: now two more mentions and a plain line while the user is elsewhere.
      await page.locator(".conn h2 a").first().click();
      await page.waitForURL(/\/chat\/irc-localhost$/);
      await bob.say("#busy", "alice: the second one");
      await bob.say("#busy", "alice: the third one");
      await bob.say("#busy", "no mention here");
      await entry(page, "#busy").locator(".badge:not(.mention)", { hasText: "3" }).waitFor();
      await assertOnScreen(page, badge(page, "#busy").filter({ hasText: "@2" }));
      // The server counts the same: a reload shows what it says.
      const convs = (await api.get("/api/conversations")).body.conversations;
      assertEquals(convs.find((c: { name: string }) => c.name === "#busy").notifications, 2);
      await goLive(page, server.url + "/chat/irc-localhost");
      await assertOnScreen(page, badge(page, "#busy").filter({ hasText: "@2" }));
      // The notifications page reads them: no badge, here and after a reload.
      await page.getByRole("link", { name: "Notifications" }).click();
      await page.waitForURL("**/notifications");
      await badge(page, "#busy").waitFor({ state: "detached" });
      await goLive(page, server.url + "/chat/irc-localhost");
      await entry(page, "#busy").locator(".badge:not(.mention)").waitFor();
      assertEquals(await badge(page, "#busy").count(), 0);
    });

    await t.step(
      "the user's own /join shows one line, however the page and event cross",
      async () => {
        await openConversation(page, "#busy");
        // The join's event waits until the new channel's first history page is asked for, and that
        // page until the server has stored the join: the live line and the stored one meet.
        let open!: () => void;
        joinGate = new Promise<void>((r) => open = r);
        holdJoin = "#solo";
        await page.route(/\/conversation\/%23solo\/messages/, async (route) => {
          open();
          await poll("the join stored", async () => {
            const got = await api.get(`${BASE}/%23solo/messages`);
            return (got.body.messages ?? []).some((m: { type: string }) => m.type === "join");
          });
          await route.continue();
        }, { times: 1 });
        const page1 = page.waitForResponse(/\/conversation\/%23solo\/messages/);
        await sendLine(page, "/join #solo");
        await page.waitForURL("**/chat/irc-localhost/%23solo");
        await page1;
        await page.locator(".messages .line", { hasText: "alice joined" }).first().waitFor();
        await rendered(page);
        holdJoin = "";
        const lines = page.locator(".messages .line", { hasText: /joined/ });
        assertEquals(await lines.count(), 1, "one line for one join");
        assert(!(await lines.first().textContent())?.includes("2 joined"), "not '2 joined'");
        await assertOnScreen(page, lines.first());
      },
    );

    await t.step("/part keeps a channel dimmed, × then removes it on every device", async () => {
      await phone.page.goto(server.url + "/login");
      await phone.page.getByLabel("Email").fill(ALICE.email);
      await phone.page.getByLabel("Password", { exact: true }).fill(ALICE.password);
      await phone.page.getByRole("button", { name: "Log in" }).click();
      await phone.page.locator(".sidebar .socket.open").waitFor({ state: "attached" });
      await entry(phone.page, "#solo").waitFor({ state: "attached" });
      await sendLine(page, "/part");
      // Left to read: still listed, dimmed, here and on the other device, and still open here (a
      // /close typed next closes it, not another).
      await entry(page, "#solo").and(page.locator(".frozen")).waitFor();
      await assertOnScreen(page, entry(page, "#solo"));
      assert(page.url().endsWith("/chat/irc-localhost/%23solo"), `still on #solo: ${page.url()}`);
      await entry(phone.page, "#solo").and(phone.page.locator(".frozen"))
        .waitFor({ state: "attached" });
      await closeFromSidebar(page, "#solo");
      await entry(page, "#solo").waitFor({ state: "detached" });
      await entry(phone.page, "#solo").waitFor({ state: "detached" });
      const convs = (await api.get("/api/conversations")).body.conversations;
      assert(!convs.some((c: { name: string }) => c.name === "#solo"), "gone from the server");
      await goLive(page, server.url + "/chat/irc-localhost");
      await assertOnScreen(page, entry(page, "#busy"));
      assertEquals(await entry(page, "#solo").count(), 0, "still gone after a reload");
    });

    await t.step("× on a joined channel parts it and removes it", async () => {
      await bob.join("#other");
      await openConversation(page, "#busy");
      await sendLine(page, "/join #other");
      await page.waitForURL("**/chat/irc-localhost/%23other");
      await bob.waitForMember("#other", "alice");
      const parted = bob.waitFor((l) => l.command === "PART" && l.nick === "alice", 20_000);
      await closeFromSidebar(page, "#other");
      await parted;
      await entry(page, "#other").waitFor({ state: "detached" });
      await entry(phone.page, "#other").waitFor({ state: "detached" });
      // Away from the closed channel, to one that is live.
      await page.waitForURL((u) => !u.pathname.includes("other"));
      await goLive(page, server.url + "/chat/irc-localhost");
      assertEquals(await entry(page, "#other").count(), 0, "still gone after a reload");
    });

    await t.step("on a phone, × in the drawer closes a channel on every device", async () => {
      await sendLine(page, "/join #pocket");
      await page.waitForURL("**/chat/irc-localhost/%23pocket");
      await entry(phone.page, "#pocket").waitFor({ state: "attached" });
      await phone.page.getByRole("button", { name: "Open menu" }).click();
      await phone.page.locator(".sidebar.open").waitFor();
      await phone.page.waitForFunction(() =>
        document.querySelector(".sidebar")!.getBoundingClientRect().left === 0
      );
      const close = phone.page.getByRole("button", { name: "Close #pocket" });
      await assertOnScreen(phone.page, close);
      await close.click();
      await entry(phone.page, "#pocket").waitFor({ state: "detached" });
      await entry(page, "#pocket").waitFor({ state: "detached" });
      // The desktop had it open: it moves on to a live conversation.
      await page.waitForURL((u) => !u.pathname.includes("pocket"));
    });

    await t.step("a line sent while its draft was saving slowly does not come back", async () => {
      await openConversation(page, "#busy");
      const paste = Array.from({ length: 40 }, (_, i) => `word${i}`).join(" ") + " end of paste";
      // A slow server: the save of the pasted text takes until a later save was answered (or
      // three seconds), as if the request had waited in a queue somewhere.
      let pasteSeen!: () => void, emptySaved!: () => void;
      const seen = new Promise<void>((r) => pasteSeen = r);
      const empty = new Promise<void>((r) => emptySaved = r);
      let inFlight = 0, sawEmpty = false, empties = 0;
      await page.route(/\/conversation\/%23busy\/draft$/, async (route) => {
        if (route.request().method() !== "POST") return route.continue();
        inFlight++;
        const draft = JSON.parse(route.request().postData() ?? "{}").draft;
        if (draft === "") empties++;
        if (draft === paste) {
          pasteSeen();
          await Promise.race([empty, new Promise((r) => setTimeout(r, 3000))]);
        }
        const response = await route.fetch();
        if (draft === "") sawEmpty = true;
        if (draft === "") emptySaved();
        await route.fulfill({ response });
        inFlight--;
      });
      await composer(page).fill(paste);
      await seen;
      await composer(page).press("Enter");
      await page.locator(".messages .line", { hasText: "end of paste" }).first().waitFor();
      await poll("the draft saves done", () => Promise.resolve(sawEmpty && inFlight === 0));
      const kept = await api.get(`${BASE}/%23busy/draft`);
      assertEquals(kept.body.draft, "", "the server keeps no draft of a sent line");
      // A save can still start after the wait above: the reload below would cut it off inside
      // the handler, whose answer then has nowhere to go.
      await page.unrouteAll({ behavior: "wait" });
      assertEquals(empties, 1, "one save clears the draft of a sent line");
      await goLive(page, server.url + "/chat/irc-localhost/%23busy");
      await page.locator(".messages .line", { hasText: "end of paste" }).first().waitFor();
      await assertOnScreen(page, composer(page));
      assertEquals(await composer(page).inputValue(), "");
    });

    await t.step("a draft read slowly does not refill the box after a line was sent", async () => {
      // A fresh page elsewhere (nothing of #busy's left to save), and a draft from another device.
      await goLive(page, server.url + "/chat/irc-localhost");
      const saved = await api.post(`${BASE}/%23busy/draft`, { draft: "an old draft" });
      assertEquals(saved.status, 200);
      // The draft's answer reaches the page only after a line was sent meanwhile (a slow network).
      let sent!: () => void;
      const sentNow = new Promise<void>((r) => sent = r);
      await page.route(/\/conversation\/%23busy\/draft$/, async (route) => {
        if (route.request().method() !== "GET") return route.continue();
        // Answered by the server now, delivered late.
        const response = await route.fetch();
        await sentNow;
        await route.fulfill({ response });
      }, { times: 1 });
      const read = page.waitForResponse((r) =>
        /\/conversation\/%23busy\/draft$/.test(r.url()) && r.request().method() === "GET"
      );
      await openConversation(page, "#busy");
      await sendLine(page, "sent before the draft came");
      await page.locator(".messages .line", { hasText: "sent before the draft came" }).first()
        .waitFor();
      sent();
      assertEquals((await (await read).json()).draft, "an old draft", "read after the send");
      await rendered(page);
      await assertOnScreen(page, composer(page));
      assertEquals(await composer(page).inputValue(), "", "the old draft stays away");
    });

    await t.step("the member list is unknown while the connection is down", async () => {
      const list = page.getByRole("complementary", { name: "Members" });
      await list.getByRole("listitem").filter({ hasText: "bob" }).waitFor();
      await irc.stop();
      await page.locator(".conn .dot.connected").waitFor({ state: "detached" });
      const unknown = list.getByText("Who is here is unknown until the connection is back.");
      await assertOnScreen(page, unknown);
      assertEquals(await list.getByRole("listitem").count(), 0, "no list shown as if known");
      await irc.start();
      await page.locator(".conn .dot.connected").waitFor({ timeout: 30_000 });
      await list.getByRole("listitem").filter({ hasText: "alice" }).waitFor({ timeout: 20_000 });
      await assertOnScreen(page, list.getByRole("listitem").filter({ hasText: "alice" }));
      assertEquals(await unknown.count(), 0);
    });

    assertEquals(errors, []);
    assertEquals(phone.errors, []);
  } finally {
    await people.close();
    await phone.context.close();
    await context.close();
    await browser.close();
    await server.close();
    await irc.close();
  }
});
