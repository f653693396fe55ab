/**
 * Benchmark: a burst in the open conversation of the web client, in real Chromium against the
 * real daemon and ngircd. Someone sends PARLEY_BENCH_WEB_BURST lines (default 3,000) in writes of
 * 100 lines, 20 ms apart (5,000 lines a second); the reader follows the newest line. Prints how
 * long until the last line was on screen after the last was sent, the longest the page took to
 * answer meanwhile (what a reader's click waits for) and how many lines the list then held.
 */
import { line } from "./stats.ts";
import { startServer } from "../tests/support/server.ts";
import { startIrcServer } from "../tests/support/ngircd.ts";
import { launchBrowser } from "../tests/support/browser.ts";
import { deskPage, IrcPeople, registerAndConnect } from "../tests/support/chat_page.ts";

const TOTAL = Number(Deno.env.get("PARLEY_BENCH_WEB_BURST") ?? 3_000);
const WRITE = 100;

const irc = await startIrcServer();
const server = await startServer();
const browser = await launchBrowser();
const { context, page } = await deskPage(browser);
const people = new IrcPeople(irc.port);
try {
  const bob = await people.add("bob", "#burst");
  await registerAndConnect(page, server.url, irc.port, {
    email: "erin@example.com",
    password: "erin's long password",
    nick: "erin",
    channel: "#burst",
  });
  await bob.waitForMember("#burst", "erin");
  await page.goto(server.url + "/chat/irc-localhost/%23burst");
  await bob.send("PRIVMSG #burst :ready");
  await page.locator(".line", { hasText: "ready" }).waitFor();
  const lastText = `burst ${TOTAL - 1}`;
  const shown = page.waitForFunction(
    (text) => [...document.querySelectorAll(".line")].some((l) => l.textContent?.endsWith(text)),
    lastText,
    { timeout: 120_000, polling: 50 },
  );
  for (let i = 0; i < TOTAL; i += WRITE) {
    const lines = [];
    for (let j = i; j < Math.min(TOTAL, i + WRITE); j++) lines.push(`PRIVMSG #burst :burst ${j}`);
    await bob.sendBytes(new TextEncoder().encode(lines.join("\r\n") + "\r\n"));
    await new Promise((r) => setTimeout(r, 20));
  }
  const sent = performance.now();
  // How long the page takes to answer (a task of its own behind whatever it is doing), asked
  // again and again until the last line is on screen: what a reader's click waits for.
  let done = 0;
  void shown.then(() => void (done = performance.now()));
  let slowest = 0;
  while (!done) {
    const asked = performance.now();
    await page.evaluate(() => 0);
    slowest = Math.max(slowest, performance.now() - asked);
  }
  await shown;
  line("web_burst_lines", TOTAL, "lines");
  line("web_burst_last_line_shown_after_sent_ms", Math.round(done - sent), "ms");
  line("web_burst_slowest_page_answer_ms", Math.round(slowest), "ms");
  line("web_burst_list_lines", await page.locator(".messages .line").count(), "lines");
} finally {
  await people.close();
  await context.close();
  await browser.close();
  await server.close();
  await irc.close();
}
