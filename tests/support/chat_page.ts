/**
 * The chat page as the end-to-end tests drive it: a desktop page in headless Chromium, a user
 * who registers there and connects to the test's ngircd, the moves made in a conversation, and
 * the other people in the channels as raw IRC clients, closed together at the end.
 */
import { type Browser, type BrowserContext, type Locator, newPage, type Page } from "./browser.ts";
import { RawIrcClient } from "./irc_client.ts";
import { poll } from "./poll.ts";

/**
 * A desktop-sized context and its page. Service workers are blocked: Playwright's offline
 * emulation does not reliably reach a page whose worker is being installed.
 */
export async function deskPage(
  browser: Browser,
): Promise<{ context: BrowserContext; page: Page; errors: string[] }> {
  const context = await browser.newContext({
    viewport: { width: 1280, height: 800 },
    serviceWorkers: "block",
  });
  return { context, ...await newPage(context) };
}

/** Who registers: the account's email and password. */
export interface Account {
  email: string;
  password: string;
}

/** What the connection form is given: the nick (the form's own guess when left out), a channel. */
export interface Joining {
  nick?: string;
  channel: string;
}

/** Registers in the page; resolves on the form that adds the first connection. */
export async function register(page: Page, url: string, who: Account): Promise<void> {
  await page.goto(url + "/register");
  await page.getByLabel("Email").fill(who.email);
  await page.getByLabel("Password", { exact: true }).fill(who.password);
  await page.getByRole("button", { name: "Create account" }).click();
  await page.waitForURL("**/settings/connection/add");
}

/** Fills the connection form for the plain-text ngircd on `ircPort`, without sending it. */
export async function fillConnection(page: Page, ircPort: number, to: Joining): Promise<void> {
  await page.getByLabel("Host", { exact: true }).fill("127.0.0.1");
  await page.getByLabel("Port").fill(String(ircPort));
  await page.getByLabel("Use TLS").uncheck();
  if (to.nick !== undefined) await page.getByLabel("Nick").fill(to.nick);
  await page.getByLabel("Channels to join").fill(to.channel);
}

/** Sends the connection form; resolves on the new connection's server messages. */
export async function connect(page: Page): Promise<void> {
  await page.getByRole("button", { name: "Connect" }).click();
  await page.waitForURL("**/chat/irc-localhost");
}

/**
 * Registers and connects to the ngircd on `ircPort`, joining `channel`. Whether the user is in
 * the channel yet is for the test to wait for (another member's `waitForMember`).
 */
export async function registerAndConnect(
  page: Page,
  url: string,
  ircPort: number,
  who: Account & Joining,
): Promise<void> {
  await register(page, url, who);
  await fillConnection(page, ircPort, who);
  await connect(page);
}

/** The message box. */
export const composer = (page: Page): Locator => page.getByLabel("Message", { exact: true });

/** Types `text` into the message box and sends it with Enter. */
export async function sendLine(page: Page, text: string): Promise<void> {
  const box = composer(page);
  await box.fill(text);
  await box.press("Enter");
}

/** Opens the conversation `name` from the sidebar; resolves once the address is its own. */
export async function openConversation(page: Page, name: string): Promise<void> {
  await page.locator(".sidebar .conv", { hasText: name }).first().click();
  await page.waitForURL(`**/chat/irc-localhost/${encodeURIComponent(name)}`);
}

/**
 * Loads `url` and waits for the page's socket: after a page load, commands wait for it, and a
 * line typed before it is open is refused.
 */
export async function goLive(page: Page, url: string): Promise<void> {
  await page.goto(url);
  // Attached, not visible: on a phone the sidebar that shows it is closed.
  await page.locator(".sidebar .socket.open").waitFor({ state: "attached" });
}

/** The newest line in the open conversation that has `text`. */
export const lineWith = (page: Page, text: string | RegExp): Locator =>
  page.locator(".messages .line", { hasText: text }).last();

/**
 * Asks the API at `path`, with the page's session, until `test` holds of its JSON answer. A wait
 * on an answer cannot go through Playwright's `waitForFunction`: it takes the promise an async
 * predicate returns for a truthy value and stops at once, never asking again.
 */
export async function untilApi<T>(
  page: Page,
  path: string,
  test: (body: T) => boolean,
  timeoutMs = 20_000,
): Promise<void> {
  const ask = (p: string) => fetch(p).then((r) => r.json());
  await poll(
    `${path} to answer as expected`,
    async () => test(await page.evaluate(ask, path) as T),
    timeoutMs,
  );
}

/** The other people: raw IRC clients on the test's ngircd, all closed by `close`. */
export class IrcPeople {
  readonly #all: RawIrcClient[] = [];
  constructor(readonly port: number) {}

  /** Connects `nick` and joins `channels` in order (the first in a channel is its operator). */
  async add(nick: string, ...channels: string[]): Promise<RawIrcClient> {
    const c = await RawIrcClient.connect(this.port, nick);
    this.#all.push(c);
    for (const channel of channels) await c.join(channel);
    return c;
  }

  /** Quits every one of them; one that is gone already is no error. */
  async close(): Promise<void> {
    for (const c of this.#all) await c.close().catch(() => {});
  }
}
