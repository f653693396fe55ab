/**
 * The bot: a user with role `bot` whose IRC connections and webhook routes come from
 * `<PARLEY_HOME>/bot.json`, read at start. A bad file stops the start with a clear message.
 */
import { join } from "node:path";
import { z } from "zod";
import { ConfigError } from "../../config.ts";
import { randomId } from "../../lib/crypto.ts";
import { log } from "../../lib/log.ts";
import type { Store } from "../../store/mod.ts";
import type { UserRecord } from "../../store/users.ts";
import type { ConnectionService } from "../connection_service.ts";
import { parseIrcUrl, sameTarget } from "../url.ts";

/** The GitHub events the webhook turns into messages. */
const GITHUB_EVENTS = ["push", "issues", "pull_request", "release"] as const;

const ircUrl = z.string().refine((v) => {
  try {
    const u = new URL(v);
    return (u.protocol === "irc:" || u.protocol === "ircs:") && u.hostname !== "";
  } catch {
    return false;
  }
}, { error: "must be an irc:// or ircs:// URL with a host" });

const route = z.object({
  repository: z.string().regex(/^[\w.-]+\/[\w.-]+$/, { error: 'must be "owner/name"' }),
  events: z.array(z.enum(GITHUB_EVENTS)).min(1),
  to: z.string().regex(/^[^/\s]+\/[^\s,]+$/, {
    error: 'must be "<connection_id>/<conversation_id>", e.g. "irc-libera/#parley"',
  }),
}).strict();

/**
 * The schema of bot.json.
 *
 * @internal test seam
 */
export const botConfigSchema = z.object({
  email: z.email({ error: "must be an email address" }).transform((e) => e.toLowerCase()),
  connections: z.array(
    z.object({
      url: ircUrl,
      channels: z.array(
        z.string().regex(/^[#&!+][^\s,]{1,63}$/, {
          error: "must be a channel name such as #parley",
        }),
      ).default([]),
    }).strict(),
  ).default([]),
  webhooks: z.object({
    github: z.object({
      secret: z.string().min(8, { error: "must be at least 8 characters" }),
      routes: z.array(route).default([]),
    }).strict().optional(),
  }).strict().default({}),
}).strict();

/** A validated bot.json. */
type BotConfig = z.output<typeof botConfigSchema>;

/** The bot as the webhook sees it once started. */
export interface Bot {
  config: BotConfig;
  user: UserRecord;
}

/**
 * Validates the text of a bot.json; throws ConfigError naming the bad field.
 *
 * @internal test seam
 */
export function parseBotConfig(text: string, file = "bot.json"): BotConfig {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    throw new ConfigError(`${file} is not valid JSON: ${(err as Error).message}`);
  }
  const result = botConfigSchema.safeParse(data);
  if (!result.success) {
    const issue = result.error.issues[0];
    const where = issue.path.length ? issue.path.join(".") : "(top level)";
    throw new ConfigError(`${file}: ${where} ${issue.message}`);
  }
  return result.data;
}

/** Reads `<home>/bot.json`; undefined when there is none. */
export async function loadBotConfig(home: string): Promise<BotConfig | undefined> {
  const file = join(home, "bot.json");
  let text: string;
  try {
    text = await Deno.readTextFile(file);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return undefined;
    throw new ConfigError(`cannot read ${file}: ${(err as Error).message}`);
  }
  return parseBotConfig(text, file);
}

/** The `/join` commands that put the bot in its channels after each registration. */
function joinCommands(channels: string[]): string[] {
  return channels.map((c) => `/join ${c}`);
}

/**
 * Makes the configuration true: the bot user exists with role `bot` (its password is random and
 * never told, so nobody logs in as it), and each configured connection exists, wants to be
 * connected and joins its channels. Connections go through the connection service, as a user's do.
 *
 * `deps.bot` is set once the user exists, before any connection is made: a webhook that arrives
 * while the bot is still connecting is answered per target, never "no bot" by a bot already in
 * its channels.
 */
export async function ensureBot(
  deps: { store: Store; connections: ConnectionService; bot?: Bot },
  config: BotConfig,
): Promise<Bot> {
  const { store, connections } = deps;
  let user = await store.users.byEmail(config.email);
  if (!user) {
    // Not an argon2 hash: no password verifies against it.
    user = await store.users.create(config.email, `!unusable!${randomId(32)}`, ["bot"]);
    log.info("bot user created", { email: config.email });
  } else if (!user.roles.includes("bot")) {
    user = (await store.users.update(user.id, { roles: [...user.roles, "bot"] }))!;
  }
  const bot = { config, user };
  deps.bot = bot;
  const existing = await store.connections.list(user.id);
  for (const want of config.connections) {
    try {
      const target = parseIrcUrl(want.url);
      const found = existing.find((c) => sameTarget(parseIrcUrl(c.url), target));
      const on_connect_commands = joinCommands(want.channels);
      if (found) {
        await connections.update(user.id, found.connectionId, {
          on_connect_commands,
          wanted_state: "connected",
        }, "/");
      } else {
        const created = await connections.create(user, {
          url: want.url,
          on_connect_commands,
          wanted_state: "connected",
        }, "/");
        log.info("bot connection created", { connection: created.connection_id });
      }
    } catch (err) {
      // One unusable connection must not keep the bot's others (or the server) down.
      log.error("bot connection not started", { error: String(err) });
    }
  }
  return bot;
}
