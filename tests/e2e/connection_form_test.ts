/**
 * The connection form in real Chromium: editing a connection's server, port or TLS setting says in
 * plain words that the saved password stays behind and must be typed again; going back to the
 * same server takes the words away again. The form shows the connection as stored when it opens:
 * a nick taken with /nick since the page loaded is the one in it.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { startServer } from "../support/server.ts";
import { assertOnScreen, launchBrowser } from "../support/browser.ts";
import { deskPage, register, sendLine, untilApi } from "../support/chat_page.ts";
import { poll } from "../support/poll.ts";
import { ApiClient } from "../support/api.ts";

const NOTE =
  "The saved password is only sent to the server, port and TLS setting it was saved for. Enter it again below if this server needs one.";

Deno.test("connection form: a changed server asks for the password again", async (t) => {
  const server = await startServer();
  const browser = await launchBrowser();
  const { context, page, errors } = await deskPage(browser);
  const email = "form@example.com";
  const password = "a long enough password";
  page.on("response", (r) => {
    if (r.status() === 404) errors.push(`404 ${r.url()}`);
  });
  try {
    await register(page, server.url, { email, password });
    // A connection with a server password, held down: nothing here needs an IRC server.
    const api = new ApiClient(server.url);
    await api.login(email, password);
    const made = await api.post("/api/connections", {
      url: "irc://jo:s3cret@irc.example.com:6667?nick=jo",
      wanted_state: "disconnected",
    });
    assertEquals(made.status, 200, JSON.stringify(made.body));
    const cid = made.body.connection_id as string;
    const note = page.getByRole("status").filter({ hasText: NOTE });
    const passwordHint = (text: string) => page.locator(".hint", { hasText: text });

    await t.step("the same server: the password is kept, nothing more is said", async () => {
      await page.goto(`${server.url}/settings/connection/${cid}`);
      const host = page.getByLabel("Host", { exact: true });
      await host.waitFor();
      assertEquals(await host.inputValue(), "irc.example.com");
      await page.getByLabel("Nick").fill("jo2");
      await passwordHint("Leave empty to keep the current password.").waitFor();
      assertEquals(await note.count(), 0);
    });

    await t.step("another host: the form says so beside it, and at the password", async () => {
      await page.getByLabel("Host", { exact: true }).fill("irc.elsewhere.example");
      await assertOnScreen(page, note);
      await page.getByLabel("Password", { exact: true }).scrollIntoViewIfNeeded();
      await assertOnScreen(page, passwordHint("Empty: no password for the new server."));
      assertEquals(await passwordHint("Leave empty to keep the current password.").count(), 0);
    });

    await t.step("back to the same host, then TLS on: said again", async () => {
      await page.getByLabel("Host", { exact: true }).fill("IRC.example.com");
      await note.waitFor({ state: "detached" });
      await page.getByLabel("Use TLS").check();
      await assertOnScreen(page, note);
      await page.getByLabel("Use TLS").uncheck();
      await page.getByLabel("Port").fill("7000");
      await assertOnScreen(page, note);
      assertEquals(errors, []);
    });

    await t.step("saving moves the connection to the new port", async () => {
      await page.getByRole("button", { name: "Save" }).click();
      await page.waitForURL(`**/chat/${cid}`);
      type Listed = { connections: { connection_id: string; url: string }[] };
      await untilApi<Listed>(
        page,
        "/api/connections",
        (b) => b.connections.some((c) => c.connection_id === cid && c.url.includes(":7000")),
      );
      const listed = await api.get("/api/connections");
      const url = (listed.body as Listed).connections.find((c) => c.connection_id === cid)!.url;
      assert(url.toLowerCase().startsWith("irc://jo:@irc.example.com:7000"), url);
    });

    await t.step("a nick taken with /nick is the form's, opened without a reload", async () => {
      await sendLine(page, "/nick jo3");
      type Listed = { connections: { connection_id: string; url: string }[] };
      await untilApi<Listed>(
        page,
        "/api/connections",
        (b) => b.connections.some((c) => c.connection_id === cid && c.url.includes("nick=jo3")),
      );
      await page.getByRole("link", { name: /^Edit connection/ }).first().click();
      await page.waitForURL(`**/settings/connection/${cid}`);
      const nick = page.getByLabel("Nick");
      await assertOnScreen(page, nick);
      await poll("the form shows jo3", async () => (await nick.inputValue()) === "jo3");
      // Saved with the port changed back, the nick stays the one taken.
      await page.getByLabel("Port").fill("6667");
      await page.getByRole("button", { name: "Save" }).click();
      await page.waitForURL(`**/chat/${cid}`);
      await untilApi<Listed>(
        page,
        "/api/connections",
        (b) => b.connections.some((c) => c.connection_id === cid && c.url.includes(":6667")),
      );
      const listed = await api.get("/api/connections");
      const url = (listed.body as Listed).connections.find((c) => c.connection_id === cid)!.url;
      assert(url.includes("nick=jo3"), url);
      assertEquals(errors, []);
    });
  } finally {
    await context.close();
    await browser.close();
    await server.close();
  }
});
