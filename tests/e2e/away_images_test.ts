/**
 * The web client's last details, in real Chromium against the real daemon and a real ngircd:
 * preview images come through Parley (the page makes no request to the remote site), others' away
 * is shown in the member list (ngircd has no away-notify: the WHO after joining tells it), and
 * `/back` ends the user's away.
 */
import { deflateSync } from "node:zlib";
import { assert, assertEquals } from "../support/assert.ts";
import { startServer } from "../support/server.ts";
import { startIrcServer } from "../support/ngircd.ts";
import { assertOnScreen, launchBrowser } from "../support/browser.ts";
import {
  composer,
  deskPage,
  IrcPeople,
  openConversation,
  registerAndConnect,
  sendLine,
} from "../support/chat_page.ts";

/** CRC-32 of PNG chunks. */
function crc32(bytes: Uint8Array): number {
  let c = ~0;
  for (const b of bytes) {
    c ^= b;
    for (let k = 0; k < 8; k++) c = (c >>> 1) ^ (0xedb88320 & -(c & 1));
  }
  return ~c >>> 0;
}

/** A real PNG of one colour, `w` by `h`, that a browser decodes. */
function png(w: number, h: number, rgb: [number, number, number]): Uint8Array<ArrayBuffer> {
  const chunk = (type: string, data: Uint8Array) => {
    const out = new Uint8Array(12 + data.length);
    const view = new DataView(out.buffer);
    view.setUint32(0, data.length);
    out.set(new TextEncoder().encode(type), 4);
    out.set(data, 8);
    view.setUint32(8 + data.length, crc32(out.subarray(4, 8 + data.length)));
    return out;
  };
  const head = new Uint8Array(13);
  const hv = new DataView(head.buffer);
  hv.setUint32(0, w);
  hv.setUint32(4, h);
  head.set([8, 2, 0, 0, 0], 8);
  const rows = new Uint8Array(h * (1 + 3 * w));
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) rows.set(rgb, y * (1 + 3 * w) + 1 + 3 * x);
  }
  const parts = [
    Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", head),
    chunk("IDAT", new Uint8Array(deflateSync(rows))),
    chunk("IEND", new Uint8Array(0)),
  ];
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let off = 0;
  for (const p of parts) out.set(p, (off += p.length) - p.length);
  return out;
}

Deno.test("web client: images through Parley, others' away, /back", async (t) => {
  const irc = await startIrcServer();
  const fetched: string[] = [];
  const site = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (req) => {
    const path = new URL(req.url).pathname;
    fetched.push(path);
    const image = (body: Uint8Array<ArrayBuffer>) =>
      new Response(body, { headers: { "content-type": "image/png" } });
    if (path === "/cat.png") return image(png(160, 100, [200, 60, 40]));
    if (path === "/thumb.png") return image(png(64, 64, [40, 120, 200]));
    if (path === "/page") {
      return new Response(
        `<html><head><title>A card</title><meta property="og:title" content="A card">
        <meta property="og:description" content="with a thumbnail">
        <meta property="og:image" content="/thumb.png"></head></html>`,
        { headers: { "content-type": "text/html" } },
      );
    }
    return new Response("missing", { status: 404 });
  });
  const siteHost = `127.0.0.1:${site.addr.port}`;
  const server = await startServer({
    env: { PARLEY_EMBED_ALLOW_PRIVATE: "1", PARLEY_TEST_FAST_IRC: "1" },
  });
  const browser = await launchBrowser();
  const { context, page, errors } = await deskPage(browser);
  const requested: string[] = [];
  page.on("request", (r) => requested.push(r.url()));
  const people = new IrcPeople(irc.port);
  const box = composer(page);
  const send = (text: string) => sendLine(page, text);
  try {
    const bob = await people.add("bob");
    const carol = await people.add("carol");
    await bob.join("#room");
    await carol.join("#room");
    // bob is away before erin arrives: only a WHO can tell her (ngircd sends no AWAY lines).
    await bob.send("AWAY :gone fishing");
    await bob.waitFor((l) => l.command === "306");

    await t.step("set up: erin registers and joins #room", async () => {
      await registerAndConnect(page, server.url, irc.port, {
        email: "erin.k@example.com",
        password: "erin's long password",
        nick: "erin",
        channel: "#room",
      });
      await bob.waitForMember("#room", "erin");
      await openConversation(page, "#room");
    });

    await t.step("11: someone else's away is shown in the member list", async () => {
      const members = page.getByRole("complementary", { name: "Members" });
      await assertOnScreen(
        page,
        members.locator("li.away", { hasText: "bob" }).locator(".away-tag"),
      );
      await assertOnScreen(page, members.locator("li", { hasText: "carol" }));
      assertEquals(await members.locator("li.away", { hasText: "carol" }).count(), 0);
    });

    await t.step("12: preview images come through Parley, never from the site", async () => {
      await bob.say("#room", `look http://${siteHost}/cat.png`);
      await bob.say("#room", `read http://${siteHost}/page`);
      const photo = page.locator(".line .embed.image img");
      const thumb = page.locator(".line .embed.card img");
      for (const img of [photo, thumb]) {
        await assertOnScreen(page, img);
        await page.waitForFunction(
          (el) => (el as HTMLImageElement).complete && (el as HTMLImageElement).naturalWidth > 0,
          await img.elementHandle(),
        );
        assert((await img.getAttribute("src"))?.startsWith("/api/embed/image?url="));
      }
      assertEquals(requested.filter((u) => new URL(u).host === siteHost), [], "no remote request");
      assert(fetched.includes("/cat.png") && fetched.includes("/thumb.png"), "Parley fetched them");
    });

    await t.step("17: /back ends away, and completes", async () => {
      await send("/away fishing too");
      const banner = page.locator(".away-line");
      await assertOnScreen(page, banner);
      await box.fill("/bac");
      await box.press("Tab");
      assertEquals(await box.inputValue(), "/back ");
      await box.press("Enter");
      await banner.waitFor({ state: "detached" });
      await assertOnScreen(page, page.getByText("You are no longer marked as away.").last());
      const from = bob.lines.length;
      await bob.send("WHOIS erin");
      await bob.waitFor((l) => l.command === "318" && bob.lines.indexOf(l) >= from);
      assert(!bob.lines.slice(from).some((l) => l.command === "301"), "back on IRC too");
    });

    await t.step("no errors in the browser console", () => {
      assertEquals(errors, []);
    });
  } finally {
    await people.close();
    await context.close();
    await browser.close();
    await server.close();
    await site.shutdown();
    await irc.close();
  }
});
