/**
 * After the IRC server went away and came back, the member list of an open channel is rebuilt
 * from the server's NAMES, live: real Chromium, the real daemon, a real ngircd killed and
 * restarted. And the connection form shows the client certificate's fingerprint.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { ApiClient } from "../support/api.ts";
import { startServer } from "../support/server.ts";
import { startIrcServer } from "../support/ngircd.ts";
import { RawIrcClient } from "../support/irc_client.ts";
import { launchBrowser } from "../support/browser.ts";
import { connect, deskPage, fillConnection, IrcPeople, register } from "../support/chat_page.ts";

/** The members of `channel` as the server lists them, with prefixes, sorted as the client does. */
async function serverNames(c: RawIrcClient, channel: string): Promise<string> {
  const from = c.lines.length;
  await c.send(`NAMES ${channel}`);
  await c.waitFor((l) => l.command === "366" && c.lines.indexOf(l) >= from);
  const names = c.lines.slice(from).filter((l) => l.command === "353")
    .flatMap((l) => (l.params.at(-1) ?? "").split(" ").filter(Boolean));
  const rank = (n: string) => "@+".indexOf(n[0]) === -1 ? 2 : "@+".indexOf(n[0]);
  const bare = (n: string) => n.replace(/^[@+]/, "").toLowerCase();
  return names.sort((a, b) => rank(a) - rank(b) || bare(a).localeCompare(bare(b))).join(" ");
}

Deno.test("web client: the member list is rebuilt live after the IRC server restarts", async () => {
  const irc = await startIrcServer();
  const server = await startServer();
  const browser = await launchBrowser();
  const { context, page, errors } = await deskPage(browser);
  // Every member list the page is given (answers to its /names), and when: [phase, nicks].
  let phase = "before";
  const lists: [string, string][] = [];
  page.on("websocket", (ws) =>
    ws.on("framereceived", ({ payload }) => {
      const frame = JSON.parse(String(payload));
      if (Array.isArray(frame.names)) {
        lists.push([phase, frame.names.map((n: { nick: string }) => n.nick).sort().join(" ")]);
      }
    }));
  const people = new IrcPeople(irc.port);
  const members = () =>
    page.evaluate(() =>
      [...document.querySelectorAll(".members li")].map((li) => li.textContent).join(" ")
    );
  const until = async (want: string) => {
    await page.waitForFunction(
      (want) =>
        [...document.querySelectorAll(".members li")].map((li) => li.textContent).join(" ") ===
          want,
      want,
      { timeout: 20_000 },
    ).catch(async () => assertEquals(await members(), want));
  };
  try {
    const bob = await people.add("bob", "#r");
    await register(page, server.url, {
      email: "erin@example.com",
      password: "erin's long password",
    });
    await page.waitForFunction(() =>
      (document.querySelector("#f-nick") as HTMLInputElement | null)?.value === "erin"
    );
    await fillConnection(page, irc.port, { channel: "#r" });
    await connect(page);
    await bob.waitForMember("#r", "erin");
    await page.getByRole("link", { name: "#r" }).click();
    await page.waitForURL("**/chat/irc-localhost/%23r");
    await until("@bob erin");

    // Commands to run on connect hold the rejoin back (they go first, through flood control),
    // while the page asks for the members as soon as the connection is up again.
    const api = new ApiClient(server.url);
    await api.login("erin@example.com", "erin's long password");
    const commands = Array.from({ length: 7 }, (_, i) => `/quote PING ${i}`);
    const saved = await api.post("/api/connection/irc-localhost", {
      on_connect_commands: commands,
    });
    assertEquals(saved.status, 200);

    // The server goes away: everyone drops, Parley reconnects with its backoff.
    await irc.stop();
    await page.locator(".conn .dot.connected").waitFor({ state: "detached" });
    phase = "after";
    await irc.start();
    // Others come back as they can, before or after Parley's rejoin.
    const carol = await people.add("carol", "#r");
    await people.add("bob", "#r");
    await page.locator(".conn .dot.connected").waitFor();
    await carol.waitForMember("#r", "erin");
    // No reload: what the page shows is what the server says.
    await until(await serverNames(carol, "#r"));
    // Never a list without the user herself (the server's answer from before the rejoin).
    const after = lists.filter(([p]) => p === "after").map(([, nicks]) => nicks);
    assert(after.length > 0, "the page asked for the members after the reconnect");
    for (const nicks of after) {
      assert(nicks.split(" ").includes("erin"), `a list without erin: ${nicks}`);
    }
    // The connection form shows the client certificate's fingerprint, read-only, as the API has it.
    const conn = (await api.get("/api/connections")).body.connections[0];
    await page.goto(server.url + "/settings/connection/irc-localhost");
    const field = page.getByLabel("Certificate fingerprint");
    await field.waitFor();
    assertEquals(await field.inputValue(), conn.info.certificate.fingerprint);
    assert(/^[0-9a-f]{128}$/.test(await field.inputValue()));
    assertEquals(await field.getAttribute("readonly"), "");
    assertEquals(errors, []);
  } finally {
    await people.close();
    await context.close();
    await browser.close();
    await server.close();
    await irc.close();
  }
});
