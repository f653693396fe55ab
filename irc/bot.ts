/**
 * The bot: a user with role `bot` whose IRC connections come from `<PARLEY_HOME>/bot.json`,
 * read at start. Webhooks (webhook/github.ts) post through it.
 *
 * ```json
 * {"email": "bot@example.com",
 *  "connections": [{"url": "irc://irc.example.org/?nick=parleybot", "channels": ["#chan"]}],
 *  "webhooks": {"github": {"secret": "...", "routes": [
 *    {"repository": "owner/name", "events": ["push", "issues"], "to": "irc-example/#chan"}]}}}
 * ```
 */
import { join } from "node:path";
import { z } from "zod";
import { ConfigError } from "../config.ts";
import type { Store } from "../store/mod.ts";
import type { UserRecord } from "../store/users.ts";
import { randomId } from "../lib/crypto.ts";
import { log } from "../lib/log.ts";
import { ircLower, isChannel } from "./casefold.ts";
import type { IrcManager } from "./manager.ts";
import { parseIrcUrl, sameTarget, withNick } from "./url.ts";

/** The GitHub events the webhook turns into messages. */
export const GITHUB_EVENTS = ["push", "issues", "pull_request", "release"] as const;

const route = z.object({
  repository: z.string().regex(/^[\w.-]+\/[\w.-]+$/, { error: "must be owner/name" }),
  events: z.array(z.enum(GITHUB_EVENTS)).min(1),
  to: z.string().regex(/^[\w-]+\/.+$/, { error: "must be <connection_id>/<conversation_id>" }),
});

const botSchema = z.object({
  email: z.email(),
  connections: z.array(z.object({
    url: z.string().refine((u) => {
      try {
        parseIrcUrl(u);
        return true;
      } catch {
        return false;
      }
    }, { error: "must be an irc:// or ircs:// URL" }),
    channels: z.array(z.string().min(2).max(200)).default([]),
  })).default([]),
  webhooks: z.object({
    github: z.object({
      secret: z.string().min(16, { error: "must be at least 16 characters" }),
      routes: z.array(route).default([]),
    }).optional(),
  }).default({}),
});

/** The validated contents of bot.json. */
export type BotConfig = z.output<typeof botSchema>;

/** The running bot: its user and configuration. */
export interface Bot {
  user: UserRecord;
  config: BotConfig;
}

/** Validates bot.json's contents; throws ConfigError naming the bad field. */
export function parseBotConfig(data: unknown): BotConfig {
  const result = botSchema.safeParse(data);
  if (!result.success) {
    const issue = result.error.issues[0];
    const where = issue.path.length ? issue.path.join(".") : "(top level)";
    throw new ConfigError(`bot.json: ${where}: ${issue.message}`);
  }
  return result.data;
}

/** Reads `<home>/bot.json`: undefined when absent, ConfigError when unreadable or invalid. */
export async function loadBotConfig(home: string): Promise<BotConfig | undefined> {
  let text: string;
  try {
    text = await Deno.readTextFile(join(home, "bot.json"));
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return undefined;
    throw new ConfigError(`bot.json: cannot be read: ${(err as Error).message}`);
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    throw new ConfigError(`bot.json: not valid JSON: ${(err as Error).message}`);
  }
  return parseBotConfig(data);
}

/**
 * Makes sure the bot user exists with role `bot` (its password is unusable: it never logs in),
 * that its connections exist, join their channels and every routed conversation, and connect.
 */
export async function startBot(
  deps: { store: Store; irc: IrcManager },
  config: BotConfig,
): Promise<Bot> {
  const { store, irc } = deps;
  const email = config.email.toLowerCase();
  let user = await store.users.byEmail(email);
  if (!user) {
    // Not an argon2 hash, so no password ever verifies against it.
    user = await store.users.create(email, `!bot:${randomId(32)}`, ["bot"]);
  } else if (!user.roles.includes("bot")) {
    user = (await store.users.update(user.id, { roles: [...user.roles, "bot"] }))!;
  }
  const targets = new Map<string, Set<string>>(); // connection_id -> conversation names
  for (const c of config.connections) {
    const url = parseIrcUrl(c.url).nick ? c.url : withNick(c.url, "parleybot");
    const existing = (await store.connections.list(user.id)).find((r) =>
      sameTarget(parseIrcUrl(r.url), parseIrcUrl(url))
    );
    const record = existing ??
      await store.connections.get(
        user.id,
        (await irc.create(user, { url, wanted_state: "disconnected" })).connection_id,
      );
    targets.set(record!.connectionId, new Set(c.channels));
  }
  for (const r of config.webhooks.github?.routes ?? []) {
    const [connectionId, ...rest] = r.to.split("/");
    if (!targets.has(connectionId) && !(await store.connections.get(user.id, connectionId))) {
      throw new ConfigError(
        `bot.json: webhooks.github.routes: "${r.to}" names no connection of the bot ` +
          `(it has ${[...targets.keys()].join(", ") || "none"})`,
      );
    }
    if (!targets.has(connectionId)) targets.set(connectionId, new Set());
    targets.get(connectionId)!.add(rest.join("/"));
  }
  for (const [connectionId, names] of targets) {
    const record = (await store.connections.get(user.id, connectionId))!;
    for (const name of names) {
      const conv = await store.conversations.ensure(record.id, ircLower(name), name);
      if (isChannel(name)) await store.conversations.setJoined(conv.id, true);
    }
    await irc.update(user.id, connectionId, { wanted_state: "connected" });
  }
  log.info("bot ready", { uid: user.id, connections: targets.size });
  return { user, config };
}
