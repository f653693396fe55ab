/**
 * The web client as a daily IRC client: members, kept drafts, readable command output,
 * connection errors in plain words, "Jump to latest", a view pinned to the newest message while
 * previews load, the connection form and the display settings. Real Chromium, the real daemon,
 * a real ngircd; a small local web site gives the link previews.
 */
import { assert, assertEquals, assertStringIncludes } from "../support/assert.ts";
import { diagnose, recordSteps, startServer } from "../support/server.ts";
import { commandsFor } from "../../protocol/command_table.ts";
import { startIrcServer } from "../support/ngircd.ts";
import { freePort } from "../support/ports.ts";
import { poll } from "../support/poll.ts";
import {
  assertOnScreen,
  launchBrowser,
  newPage,
  type Page,
  screenshot,
} from "../support/browser.ts";
import { composer, deskPage, goLive, IrcPeople, register, sendLine } from "../support/chat_page.ts";

/** A page with a link preview; answers after a short wait so previews arrive after the scroll. */
function startSite() {
  return Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
    const n = new URL(req.url).searchParams.get("n") ?? "0";
    await new Promise((r) => setTimeout(r, 150));
    const html = `<!doctype html><html><head><title>Page ${n}</title>
<meta property="og:title" content="Preview number ${n}">
<meta property="og:description" content="A long description of page ${n}, long enough to take two lines in the card of the preview so that it adds height.">
<meta property="og:image" content="/missing-${n}.png">
</head><body>page</body></html>`;
    return new Response(html, { headers: { "content-type": "text/html; charset=utf-8" } });
  });
}

/** Calls the API from the page, with its session. */
async function api(page: Page, method: string, path: string, body?: unknown): Promise<number> {
  return await page.evaluate(async ([method, path, body]) => {
    const res = await fetch("/api" + path, {
      method: method as string,
      headers: { "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    await res.text();
    return res.status;
  }, [method, path, body] as const);
}

const messagesAtBottom = (page: Page) =>
  page.locator(".messages").evaluate((el) => el.scrollHeight - el.scrollTop - el.clientHeight < 40);

Deno.test("web client: members, drafts, command output, errors, display", async (t) => {
  const steps = recordSteps(t);
  const irc = await startIrcServer();
  const server = await startServer({ env: { PARLEY_EMBED_ALLOW_PRIVATE: "1" } });
  const site = startSite();
  const siteUrl = `http://127.0.0.1:${site.addr.port}`;
  const browser = await launchBrowser();
  const { context, page, errors } = await deskPage(browser);
  const people = new IrcPeople(irc.port);
  const box = composer(page);
  // A setting changed, and kept by the server before the page is left: leaving at once would
  // cancel the save, and the next page would read the setting as it was.
  const saved = (change: () => Promise<unknown>) =>
    Promise.all([
      page.waitForResponse((r) =>
        r.url().endsWith("/api/client-settings") && r.request().method() === "POST"
      ),
      change(),
    ]);
  const send = (text: string) => sendLine(page, text);
  // The page's /events socket, passed through; while `namesHeld` is set, the answer to the next
  // `/names` is kept back (later frames pass it) until `namesHeld.release()`. While
  // `settingsHeld` is set, `client_settings` events are kept in it, to be sent when the test says.
  let namesHeld: { taken: () => void; release?: () => void } | undefined;
  let settingsHeld: (() => void)[] | undefined;
  await page.routeWebSocket(/\/events$/, (ws) => {
    const srv = ws.connectToServer();
    ws.onMessage((m) => srv.send(m));
    srv.onMessage((m) => {
      const text = String(m);
      const held = namesHeld;
      if (held && !held.release && text.includes('"event":"sent"') && text.includes('"/names"')) {
        held.release = () => ws.send(m);
        held.taken();
      } else if (settingsHeld && text.includes('"event":"client_settings"')) {
        settingsHeld.push(() => ws.send(m));
      } else ws.send(m);
    });
  });
  try {
    // bob is first in #busy, so ngircd makes him its operator.
    const bob = await people.add("bob", "#busy");
    await people.add("carol", "#busy");

    await steps.step(
      "the connection form starts from the account and checks the port",
      async () => {
        await register(page, server.url, {
          email: "erin.k@example.com",
          password: "erin's long password",
        });
        await assertOnScreen(page, page.getByRole("heading", { name: "Add connection" }));
        // The nick comes from the email, without the characters IRC refuses.
        await page.waitForFunction(() =>
          (document.querySelector("#f-nick") as HTMLInputElement | null)?.value === "erink"
        );
        assertEquals(await page.getByLabel("Port").getAttribute("type"), "number");
        await page.getByLabel("Host", { exact: true }).fill("127.0.0.1");
        await page.getByLabel("Port").fill("99999");
        await page.getByLabel("Use TLS").uncheck();
        await page.getByLabel("Nick").fill("erin");
        await page.getByLabel("Channels to join").fill("#busy");
        await page.getByRole("button", { name: "Connect" }).click();
        assertStringIncludes(
          (await page.locator("#f-port-error").textContent()) ?? "",
          "The port is a number from 1 to 65535.",
        );
        await page.getByLabel("Port").fill(String(irc.port));
        await page.getByRole("button", { name: "Connect" }).click();
        await page.waitForURL("**/chat/irc-localhost");
        // The server view is titled by the server, not by the internal id.
        const title = page.locator("main h1");
        await assertOnScreen(page, title);
        assert((await title.textContent()) !== "irc-localhost", "no internal id as the title");
        assert(
          !(await page.locator(".sidebar").textContent())!.includes("irc-localhost"),
          "no internal id in the sidebar",
        );
      },
    );

    await steps.step("the member list: ranks, prefixes, count, filter, kept current", async () => {
      await bob.waitForMember("#busy", "erin");
      await page.getByRole("link", { name: "#busy" }).click();
      await page.waitForURL("**/chat/irc-localhost/%23busy");
      const panel = page.getByRole("complementary", { name: "Members" });
      const items = panel.getByRole("listitem");
      await assertOnScreen(page, panel.getByRole("heading"));
      const names = async () => (await items.allTextContents()).join(" ");
      const until = async (want: string) => {
        await page.waitForFunction(
          (want) =>
            [...document.querySelectorAll(".members li")].map((li) => li.textContent).join(" ") ===
              want,
          want,
        ).catch(async () => assertEquals(await names(), want));
      };
      await until("@bob carol erin");
      assertStringIncludes((await panel.getByRole("heading").textContent()) ?? "", "3");

      await bob.send("MODE #busy +v carol");
      await until("@bob +carol erin");
      await page.getByText("bob sets mode +v carol").waitFor();

      const dave = await people.add("dave", "#busy");
      await until("@bob +carol dave erin");
      assertStringIncludes((await panel.getByRole("heading").textContent()) ?? "", "4");
      await dave.send("NICK dave2");
      await until("@bob +carol dave2 erin");
      await dave.send("PART #busy :later");
      await until("@bob +carol erin");
      const frank = await people.add("frank", "#busy");
      await until("@bob +carol erin frank");
      await bob.send("KICK #busy frank :out");
      await until("@bob +carol erin");
      await frank.join("#busy");
      await until("@bob +carol erin frank");
      await frank.send("QUIT :gone");
      await until("@bob +carol erin");

      // The list asked for on opening the channel, answered after changes made since (an answer
      // and the events take different ways through the server): the answer has gina, who has
      // been renamed and left by the time it comes.
      const gina = await people.add("gina", "#busy");
      await until("@bob +carol erin gina");
      const taken = new Promise<void>((taken) => namesHeld = { taken });
      await page.locator(".conn h2 a").first().click();
      await page.waitForURL("**/chat/irc-localhost");
      await page.getByRole("link", { name: "#busy" }).click();
      await taken;
      await gina.send("NICK gina2");
      await until("@bob +carol erin gina2");
      await gina.send("PART #busy :bye");
      await until("@bob +carol erin");
      namesHeld!.release!();
      namesHeld = undefined;
      // A line after the answer: once it is shown, the answer has been read.
      await bob.say("#busy", "after the answer");
      await page.locator(".line .text", { hasText: "after the answer" }).waitFor();
      assertEquals(await names(), "@bob +carol erin");

      await panel.getByRole("searchbox", { name: "Filter members" }).fill("CA");
      await until("+carol");
      await screenshot(page, "members");
      await panel.getByRole("searchbox", { name: "Filter members" }).fill("");
      await until("@bob +carol erin");
    });

    await steps.step("command output is readable, never raw JSON", async () => {
      await send("/whois bob");
      const whois = page.getByRole("table", { name: "Whois bob" });
      await whois.waitFor();
      await assertOnScreen(page, whois);
      assertStringIncludes((await whois.textContent()) ?? "", "Real name");
      assertStringIncludes((await whois.textContent()) ?? "", "#busy");
      await screenshot(page, "whois");

      await send("/whois nobody");
      await page.locator(".line.event.error", { hasText: "nobody: No such nick" }).waitFor();

      await send("/list");
      const list = page.getByRole("table", { name: "Channels" });
      await list.waitFor();
      assertStringIncludes((await list.textContent()) ?? "", "#busy");
      // A row reads as one line: the channel's name (a button) on the count's baseline, the
      // counts under their heading's right edge.
      const at = await list.evaluate((table) => {
        const words = (el: Element) => {
          const r = document.createRange();
          r.selectNodeContents(el);
          return r.getBoundingClientRect();
        };
        const row = table.querySelector("tbody tr")!;
        const name = words(row.querySelector(".join-link")!);
        const users = words(row.querySelector("td.num")!);
        const heading = words(table.querySelectorAll("thead th")[1]);
        return { name: name.bottom, users: users.bottom, right: [heading.right, users.right] };
      });
      assert(Math.abs(at.name - at.users) < 2, `one baseline: ${JSON.stringify(at)}`);
      assert(Math.abs(at.right[0] - at.right[1]) < 2, `counts under their heading: ${at.right}`);

      await send("/names");
      await page.getByText("3 members in #busy").waitFor();

      await send("/away at lunch");
      await page.getByText("You are marked as away: at lunch").waitFor();
      await send("/away");
      await page.getByText("You are no longer marked as away.").waitFor();

      await send("/help");
      const help = page.getByRole("table", { name: "Commands" });
      await help.waitFor();
      // Every command of the one table a user may run, with its aliases and description.
      const listed = (await help.textContent()) ?? "";
      for (const c of commandsFor([])) {
        for (const text of [c.usage, c.description, ...c.aliases.map((a) => "/" + a)]) {
          assertStringIncludes(listed, text);
        }
      }

      const shown = (await page.locator(".messages").textContent()) ?? "";
      assert(!/[{[]"/.test(shown), `no JSON in the chat: ${shown.slice(0, 200)}`);
    });

    await steps.step(
      "/msg to a nick nobody has: the error where the user is, no conversation",
      async () => {
        await send("/msg nobody hello?");
        const line = page.locator(".line.event.error", { hasText: "nobody: No such nick" }).last();
        await line.waitFor();
        await assertOnScreen(page, line);
        assert(page.url().endsWith("/chat/irc-localhost/%23busy"), page.url());
        assertEquals(await page.locator('.sidebar a[href$="/nobody"]').count(), 0);
      },
    );

    await steps.step("typed text survives a lost socket and is sent when it is back", async () => {
      await page.locator(".socket.open").waitFor();
      await context.setOffline(true);
      await page.locator(".socket:not(.open)").waitFor();
      await send("kept while offline");
      await page.locator(".line.event.error", { hasText: "Not sent" }).last().waitFor();
      assertEquals(await box.inputValue(), "kept while offline");
      await context.setOffline(false);
      await page.locator(".socket.open").waitFor({ timeout: 30_000 });
      await box.press("Enter");
      await bob.waitFor((l) => l.command === "PRIVMSG" && l.params[1] === "kept while offline");
      assertEquals(await box.inputValue(), "");
    });

    await steps.step("typed text survives a down IRC connection", async () => {
      assertEquals(
        await api(page, "POST", "/connection/irc-localhost", { wanted_state: "disconnected" }),
        200,
      );
      await page.locator(".conn .dot.disconnected").waitFor();
      // The lost-socket step left a "Not sent" line: wait for a new one, not that one.
      const notSent = page.locator(".line.event.error", { hasText: "Not sent" });
      const before = await notSent.count();
      await send("kept while disconnected");
      await page.waitForFunction(
        (n) =>
          [...document.querySelectorAll(".line.event.error")]
            .filter((l) => l.textContent?.includes("Not sent")).length > n,
        before,
      );
      assertEquals(await box.inputValue(), "kept while disconnected");
      assertEquals(
        await api(page, "POST", "/connection/irc-localhost", { wanted_state: "connected" }),
        200,
      );
      await page.locator(".conn .dot.connected").waitFor({ timeout: 30_000 });
      await bob.waitForMember("#busy", "erin");
      await box.press("Enter");
      await bob.waitFor((l) =>
        l.command === "PRIVMSG" && l.params[1] === "kept while disconnected"
      );
    });

    await steps.step(
      "a busy channel: Jump to latest counts what arrived while scrolled up",
      async () => {
        for (let i = 1; i <= 80; i++) await bob.say("#busy", `busy line ${i} with some words`);
        await page.locator(".line", { hasText: "busy line 80 " }).waitFor();
        assert(await messagesAtBottom(page), "stays at the newest message while at the bottom");
        // The scroll event is dispatched here, not on the next frame, so the client knows it is
        // scrolled up before the next line arrives (else it followed that line to the bottom).
        await page.locator(".messages").evaluate((el) => {
          el.scrollTop = 0;
          el.dispatchEvent(new Event("scroll"));
        });
        await bob.say("#busy", "new one");
        await bob.say("#busy", "new two");
        await bob.say("#busy", "new three");
        const jump = page.getByRole("button", { name: /Jump to latest/ });
        await page.waitForFunction(() =>
          document.querySelector(".jump-live")?.textContent?.includes("3 new")
        );
        await assertOnScreen(page, jump);
        await screenshot(page, "busy-channel-scrolled");
        await jump.click();
        await assertOnScreen(page, page.locator(".line", { hasText: "new three" }));
        await jump.waitFor({ state: "detached" });
        await screenshot(page, "busy-channel");
      },
    );

    await steps.step(
      "joins and parts collapse into one line; a setting shows or hides them",
      async () => {
        const run = page.locator(".line.event.run .run-toggle");
        const joinParts = (value: string) =>
          saved(() => page.getByLabel("Joins and parts").selectOption(value));
        const comers = [];
        for (const nick of ["dave", "erin2", "frank"]) comers.push(await people.add(nick, "#busy"));
        for (const c of comers.slice(0, 2)) await c.send("PART #busy :bye");
        await page.getByText("2 left").waitFor();
        await assertOnScreen(page, run.last());
        assertEquals((await run.last().textContent())?.trim(), "3 joined, 2 left");
        assertEquals(await run.last().getAttribute("aria-expanded"), "false");
        await screenshot(page, "collapsed-events");
        await run.last().click();
        assertEquals(await run.last().getAttribute("aria-expanded"), "true");
        await assertOnScreen(page, page.locator(".line.event", { hasText: "frank joined" }));
        await run.last().click();
        assertEquals(await page.locator(".line.event", { hasText: "frank joined" }).count(), 0);
        // After a reload the stored events collapse the same way, and a stored event outside a
        // run (a topic change) is a quiet event line too, without a nick column.
        await bob.send("TOPIC #busy :joins and parts");
        await page.locator(".line.event", { hasText: "joins and parts" }).waitFor();
        await page.reload();
        await page.locator(".line.event.run", { hasText: "3 joined, 2 left" }).waitFor();
        await page.locator(".line.event.topic", {
          hasText: "bob changed the topic to: joins and parts",
        })
          .waitFor();
        assertEquals(await page.locator(".line.event .nick").count(), 0);
        // The setting: each one, or none.
        await page.goto(server.url + "/settings/account");
        await joinParts("hide");
        await page.goto(server.url + "/chat/irc-localhost/%23busy");
        await page.locator(".line", { hasText: "new three" }).waitFor();
        assertEquals(await run.count(), 0);
        // Their words, not a count: a line that shows anyway says which it is.
        const quiet = page.locator(".line.join, .line.part, .line.event.join");
        assertEquals(await quiet.allTextContents(), []);
        await page.goto(server.url + "/settings/account");
        await joinParts("show");
        await page.goto(server.url + "/chat/irc-localhost/%23busy");
        await page.locator(".line", { hasText: "frank joined" }).waitFor();
        assertEquals(await run.count(), 0);
        await page.goto(server.url + "/settings/account");
        await joinParts("condense");
        // The next step types a command: the page's socket must be open for it.
        await goLive(page, server.url + "/chat/irc-localhost/%23busy");
        // frank leaves too, so the channel is as before the step (after the topic: a line alone).
        await comers[2].send("PART #busy :bye");
        await page.locator(".line.event.part", { hasText: "frank left" }).waitFor();
      },
    );

    await steps.step("opening a channel with previews lands on the newest message", async () => {
      await bob.join("#previews");
      await send("/join #previews");
      await page.waitForURL("**/chat/irc-localhost/%23previews");
      for (let i = 1; i <= 12; i++) await bob.say("#previews", `see ${siteUrl}/page?n=${i}`);
      await bob.say("#previews", "the newest line");
      await page.locator(".line", { hasText: "the newest line" }).waitFor();
      await page.locator(".embed.card").nth(11).waitFor();
      // Broken preview images are hidden, not shown as broken icons.
      await page.waitForFunction(() => !document.querySelector(".embed.card img"));
      await page.getByRole("link", { name: "#busy" }).click();
      await page.waitForURL("**/chat/irc-localhost/%23busy");
      await page.reload();
      await page.getByRole("link", { name: "#previews" }).click();
      await page.locator(".embed.card").nth(11).waitFor();
      await page.waitForFunction(() => {
        const el = document.querySelector(".messages")!;
        return el.scrollHeight - el.scrollTop - el.clientHeight < 40;
      }).catch(() => {});
      assert(await messagesAtBottom(page), "pinned to the newest message after previews loaded");
      await assertOnScreen(page, page.locator(".line", { hasText: "the newest line" }));
    });

    await steps.step("connection errors in plain words, in the view and the sidebar", async () => {
      const cases: [string, string, boolean, string][] = [
        ["127.0.0.1", String(freePort()), false, "Connection refused"],
        ["127.0.0.1", String(irc.port), true, "TLS handshake failed: is this a plain-text port?"],
        ["no-such-host.invalid", "6667", false, "Unknown host: no-such-host.invalid"],
      ];
      for (const [host, port, tls, words] of cases) {
        await page.goto(server.url + "/settings/connection/add");
        await page.getByLabel("Host", { exact: true }).fill(host);
        await page.getByLabel("Port").fill(port);
        if (!tls) await page.getByLabel("Use TLS").uncheck();
        else await page.getByLabel("Verify the certificate").uncheck();
        // A second connection to the same host: named, so it is not "localhost" twice.
        if (tls) await page.getByLabel("Connection name").fill("Work bouncer");
        await page.getByRole("button", { name: "Connect" }).click();
        await page.waitForURL(/\/chat\/irc-[^/]+$/);
        const cid = decodeURIComponent(new URL(page.url()).pathname.split("/")[2]);
        const alert = page.locator(".conn-problem");
        await alert.waitFor({ timeout: 30_000 });
        await assertOnScreen(page, alert);
        assertStringIncludes((await alert.textContent()) ?? "", words);
        const entry = page.locator(`.conn h2 a[href="/chat/${encodeURIComponent(cid)}"]`);
        assertStringIncludes((await entry.getAttribute("title")) ?? "", words);
        if (tls) {
          // The whole name in view: the state and the reason are on the line below it.
          const label = entry.locator(".label");
          assertEquals(await label.textContent(), "Work bouncer");
          const cut = await label.evaluate((el) => el.scrollWidth > el.clientWidth);
          assert(!cut, "the connection's name is not cut short");
          // Shown while the connection is down between its tries, not while it tries (a TLS try
          // on a plain port takes ~20 s here): waited for over a whole round.
          const why = page.locator(".sidebar .conn-why", { hasText: "disconnected · TLS" });
          await assertOnScreen(page, why, 45_000);
        }
        if (tls) await screenshot(page, "connection-error");
        assertEquals(await api(page, "DELETE", `/connection/${encodeURIComponent(cid)}`), 200);
      }
    });

    await steps.step("a connection on its way adds no line to the sidebar", async () => {
      // A server that takes the connection and never answers: Parley waits for its welcome. A
      // line under the name while connecting would go again at the welcome, moving every entry
      // below it under the pointer.
      const silent = Deno.listen({ hostname: "127.0.0.1", port: 0 });
      const held: Deno.Conn[] = [];
      const accepting = (async () => {
        for await (const conn of silent) held.push(conn);
      })();
      try {
        await page.goto(server.url + "/settings/connection/add");
        await page.getByLabel("Host", { exact: true }).fill("127.0.0.1");
        await page.getByLabel("Port").fill(String(silent.addr.port));
        await page.getByLabel("Use TLS").uncheck();
        await page.getByLabel("Connection name").fill("Quiet network");
        await page.getByRole("button", { name: "Connect" }).click();
        await page.waitForURL(/\/chat\/irc-[^/]+$/);
        const cid = decodeURIComponent(new URL(page.url()).pathname.split("/")[2]);
        const section = page.locator(".sidebar .conn", {
          has: page.locator(`h2 a[href="/chat/${encodeURIComponent(cid)}"]`),
        });
        await section.locator(".dot.connecting").waitFor();
        await poll("the server has the connection", () => held.length > 0);
        await assertOnScreen(page, section.locator(".label", { hasText: "Quiet network" }));
        assertEquals(await section.locator(".conn-why").count(), 0);
        assertEquals(await api(page, "DELETE", `/connection/${encodeURIComponent(cid)}`), 200);
      } finally {
        silent.close();
        for (const conn of held) conn.close();
        await accepting.catch(() => {});
      }
    });

    await steps.step(
      "settings: the socket's late copy of a save does not undo a newer one",
      async () => {
        await page.goto(server.url + "/settings/account");
        const clock = page.getByLabel("24-hour clock");
        await clock.scrollIntoViewIfNeeded();
        await assertOnScreen(page, clock);
        assert(await clock.isChecked(), "the 24-hour clock to start with");
        // The socket tells this device of its own two saves only after both were answered, the
        // older last (as a slow socket, or two nodes, can).
        settingsHeld = [];
        await saved(() => page.getByLabel("Show seconds").check());
        await saved(() => clock.uncheck());
        await poll("both saves told", () => settingsHeld!.length === 2);
        const [older, newer] = settingsHeld;
        settingsHeld = undefined;
        newer();
        older();
        // A mention after them on the same socket: once the title counts it, both were handled.
        const counted = Number(/^\((\d+)\)/.exec(await page.title())?.[1] ?? 0);
        await bob.say("#busy", "erin: are you there");
        await page.waitForFunction((n) => document.title.startsWith(`(${n}) `), counted + 1);
        assert(!(await clock.isChecked()), "the 12-hour clock stays chosen");
        assert(await page.getByLabel("Show seconds").isChecked(), "seconds stay chosen");
        const kept = await page.evaluate(() =>
          JSON.parse(localStorage.getItem("parley.settings")!)
        );
        assertEquals([kept.clock24, kept.seconds], [false, true], "this browser's copy too");
        await saved(() => page.getByLabel("Show seconds").uncheck());
        await saved(() => clock.check());
      },
    );

    await steps.step("display settings: compact layout, 24-hour clock, seconds", async () => {
      await page.goto(server.url + "/settings/account");
      await saved(() => page.getByLabel("Compact layout").check());
      await saved(() => page.getByLabel("Show seconds").check());
      await saved(() => page.getByLabel("24-hour clock").uncheck());
      await page.goto(server.url + "/chat/irc-localhost/%23busy");
      await page.locator(".messages.compact").waitFor();
      const time = (await page.locator(".line time").last().textContent()) ?? "";
      assert(/\d{1,2}:\d{2}:\d{2}\s?(AM|PM)/i.test(time), `12-hour time with seconds: ${time}`);
      // The nick column has one width, whoever speaks.
      const widths = await page.locator(".line:not(.event) .nick").evaluateAll((els) =>
        new Set(els.slice(-20).map((e) => Math.round(e.getBoundingClientRect().width))).size
      );
      assertEquals(widths, 1);
      await screenshot(page, "compact");
      await page.goto(server.url + "/settings/account");
      await saved(() => page.getByLabel("Compact layout").uncheck());
      await saved(() => page.getByLabel("Show seconds").uncheck());
      await saved(() => page.getByLabel("24-hour clock").check());
      await page.goto(server.url + "/chat/irc-localhost/%23busy");
      const time24 = (await page.locator(".line time").last().textContent()) ?? "";
      assert(/^\d{2}:\d{2}$/.test(time24.trim()), `24-hour time: ${time24}`);
    });

    await steps.step(
      "messages: mentioned nicks coloured, groups break after /me, no empty scroll bar",
      async () => {
        await bob.say("#busy", "carol: look at this");
        const mention = page.locator(".line", { hasText: "look at this" }).locator(".mention-nick");
        await mention.waitFor();
        assertEquals(await mention.textContent(), "carol");
        await bob.send("PRIVMSG #busy :\x01ACTION waves\x01");
        await bob.say("#busy", "after the wave");
        const after = page.locator(".line", { hasText: "after the wave" });
        await after.waitFor();
        assert(!(await after.getAttribute("class"))!.includes("grouped"), "a new group after /me");
        const scrolls = await box.evaluate((el) =>
          el.scrollHeight > el.clientHeight &&
          getComputedStyle(el).overflowY !== "hidden"
        );
        assert(!scrolls, "the empty message box has no scroll bar");
      },
    );

    await steps.step("phone layout in light and dark: members behind a button", async () => {
      for (const scheme of ["light", "dark"] as const) {
        const phone = await browser.newContext({
          viewport: { width: 390, height: 844 },
          colorScheme: scheme,
          storageState: await context.storageState(),
        });
        const { page: p, errors: phoneErrors } = await newPage(phone);
        await p.goto(server.url + "/chat/irc-localhost/%23busy");
        await assertOnScreen(p, p.getByRole("heading", { name: "#busy" }));
        await assertOnScreen(p, p.getByLabel("Message", { exact: true }));
        await p.locator(".line", { hasText: "after the wave" }).waitFor();
        await screenshot(p, `phone-chat-${scheme}`);
        assertEquals(await p.getByRole("complementary", { name: "Members" }).count(), 0);
        await p.getByRole("button", { name: "Members" }).click();
        const panel = p.getByRole("complementary", { name: "Members" });
        await assertOnScreen(p, panel.getByRole("heading"));
        await assertOnScreen(p, panel.getByRole("listitem").first());
        assertEquals(await panel.getByRole("listitem").count(), 3);
        await screenshot(p, `phone-members-${scheme}`);
        await p.goto(server.url + "/settings/connection/add");
        await assertOnScreen(p, p.getByRole("heading", { name: "Add connection" }));
        assertEquals(phoneErrors, []);
        await phone.close();
      }
    });

    await steps.step("no errors in the browser console", () => {
      // Going offline on purpose makes Chromium log the failed WebSocket reconnects.
      const ours = errors.filter((e) =>
        !/WebSocket connection to '.*\/events' failed|ERR_INTERNET_DISCONNECTED/.test(e) &&
        !e.includes(siteUrl) // the previews' images are broken on purpose
      );
      assertEquals(ours, []);
    });
  } finally {
    if (steps.failed) console.log(diagnose(server.output(), irc.output(), 60));
    await screenshot(page, "members-drafts-last").catch(() => {});
    await people.close();
    await context.close();
    await browser.close();
    await site.shutdown();
    await server.close();
    await irc.close();
  }
});
