/**
 * What both importers share: the target data folder (opened directly, the daemon stopped),
 * idempotent "find or create" for users, connections and conversations, the message writer,
 * the progress line, the summary, and errors that name the file they concern.
 */
import { join } from "node:path";
import { type Config, ConfigError } from "../config.ts";
import { openDatabase } from "../store/sqlite/db.ts";
import { migrate, sqliteMigrations } from "../store/sqlite/migrate.ts";
import { sqliteTables } from "../store/sqlite/tables.ts";
import { userStore } from "../store/tables/users.ts";
import { connectionStore } from "../store/tables/connections.ts";
import type { UserStore } from "../store/users.ts";
import type { ConnectionRecord } from "../store/connections.ts";
import { channelKey, type ConversationRecord } from "../store/conversations.ts";
import { sqliteConversationStore } from "../store/sqlite/conversations.ts";
import { type ImportedMessage, messageImporter } from "../store/sqlite/import.ts";
import { openSqliteStore } from "../store/sqlite/mod.ts";
import type { Store } from "../store/mod.ts";
import { email as emailSchema } from "../protocol/contract/fields.ts";
import { ircLower } from "../lib/casefold.ts";
import { newConnectionId, parseIrcUrl, sameTarget } from "../irc/url.ts";
import { createInvite } from "../routes/invite.ts";
import type { AppDeps } from "../http/env.ts";

/** What an import did, printed at the end. */
interface ImportSummary {
  users: number;
  connections: number;
  conversations: number;
  messages: number;
  /** Channel events (joins, parts, kicks, quits, nick changes, topics, modes). */
  events: number;
  /** Messages already there from an earlier run. */
  alreadyThere: number;
  /** Channel events already there from an earlier run. */
  eventsAlreadyThere: number;
  /**
   * Lines that cannot be placed: a network no longer configured, an unknown or malformed line, an
   * event where Parley keeps none (a join in a private conversation).
   */
  skipped: number;
}

/** An unreadable or invalid input file: the message names it. */
export function fileError(path: string, reason: unknown): ConfigError {
  const text = reason instanceof Error ? reason.message : String(reason);
  return new ConfigError(`cannot import ${path}: ${text}`);
}

/** Larger JSON files are no user or connection file of the programs imported from. */
const MAX_JSON_BYTES = 4 * 1024 * 1024;

/**
 * The folder being imported, as something to distrust: a file or folder in it may be a link
 * to anywhere (a secret of the admin running the import, another user's logs), so everything
 * read goes through `inside`, and what leaves the folder is skipped with a note.
 */
export class SourceFolder {
  /** Paths skipped because they lead out of the folder. */
  readonly skipped: string[] = [];

  private constructor(readonly root: string, readonly real: string) {}

  static async open(root: string): Promise<SourceFolder> {
    return new SourceFolder(root, await Deno.realPath(root));
  }

  /**
   * Whether `path` (a file or folder under the root) really is inside the folder once every
   * link on the way is followed; a missing path is not. One that leaves it is noted and skipped.
   */
  async inside(path: string): Promise<boolean> {
    let real: string;
    try {
      real = await Deno.realPath(path);
    } catch (err) {
      if (err instanceof Deno.errors.NotFound) return false;
      throw fileError(path, err);
    }
    if (real === this.real || real.startsWith(this.real + "/")) return true;
    this.skipped.push(path);
    console.error(`skipped ${path}: it is a link out of ${this.root}`);
    return false;
  }

  /**
   * The files and folders in `dir`, sorted by name, links followed when they stay inside the
   * folder (and skipped when they leave it).
   */
  async list(dir: string): Promise<SourceEntry[]> {
    const out: SourceEntry[] = [];
    try {
      for await (const e of Deno.readDir(dir)) {
        const path = join(dir, e.name);
        if (!e.isSymlink) {
          out.push({ name: e.name, path, isFile: e.isFile, isDirectory: e.isDirectory });
        } else if (await this.inside(path)) {
          const info = await Deno.stat(path);
          out.push({ name: e.name, path, isFile: info.isFile, isDirectory: info.isDirectory });
        }
      }
    } catch (err) {
      if (err instanceof ConfigError) throw err;
      throw fileError(dir, err);
    }
    return out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }
}

/** One entry of a listed folder. */
interface SourceEntry {
  name: string;
  path: string;
  isFile: boolean;
  isDirectory: boolean;
}

/**
 * Reads and parses a JSON file, or fails naming it. The message never quotes the file: it may
 * be anything (a link planted to make the import print a secret).
 */
export async function readJson(path: string): Promise<Record<string, unknown>> {
  let text: string;
  try {
    using file = await Deno.open(path);
    if ((await file.stat()).size > MAX_JSON_BYTES) {
      throw new Error(`larger than ${MAX_JSON_BYTES} bytes`);
    }
    text = await new Response(file.readable).text();
  } catch (err) {
    throw fileError(path, err);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw fileError(path, "not valid JSON");
  }
  if (!value || typeof value !== "object" || Array.isArray(value)) {
    throw fileError(path, "not a JSON object");
  }
  return value as Record<string, unknown>;
}

/** A validated, lower-cased email address, or an error saying whose it was. */
export function checkEmail(text: string, whose: string): string {
  const parsed = emailSchema.safeParse(text);
  if (!parsed.success) throw new ConfigError(`${whose}: not an email address`);
  return parsed.data;
}

/** A connection as another program describes it. */
export interface WantedConnection {
  /** The id to keep when it is free (Convos has them); else one is made from the host. */
  connectionId?: string;
  name: string;
  url: string;
  onConnectCommands: string[];
  wantedState: "connected" | "disconnected";
}

/** One import into one data folder. */
export class ImportSession {
  readonly summary: ImportSummary = {
    users: 0,
    connections: 0,
    conversations: 0,
    messages: 0,
    events: 0,
    alreadyThere: 0,
    eventsAlreadyThere: 0,
    skipped: 0,
  };
  /** Users created by this run, who need an invite link to set a password. */
  readonly newUsers: string[] = [];
  /**
   * The same users as a set: a source may name one person twice (two ZNC users, a soju user and
   * a network), and the account this run made is theirs, not someone else's to merge into.
   */
  readonly #madeHere = new Set<string>();
  readonly #db;
  readonly #users: UserStore;
  readonly #connections;
  readonly #conversations;
  readonly #messages;
  #lastProgress = performance.now();
  readonly #started = performance.now();

  private constructor(
    readonly config: Config,
    db: ReturnType<typeof openDatabase>,
    readonly merge: boolean,
  ) {
    this.#db = db;
    const tables = sqliteTables(db);
    this.#users = userStore(tables);
    this.#connections = connectionStore(tables);
    this.#conversations = sqliteConversationStore(db);
    this.#messages = messageImporter(db);
  }

  /**
   * Opens the data folder's database (migrating it, as the daemon would). With `merge`, users
   * that already have an account here get the import added to it; without, they stop it.
   */
  static async open(config: Config, opts: { merge?: boolean } = {}): Promise<ImportSession> {
    const db = openDatabase(join(config.home, "parley.db"));
    migrate(db, await sqliteMigrations());
    return new ImportSession(config, db, opts.merge === true);
  }

  /**
   * Stops the import before anything is written when one of these users already has an
   * account and merging was not asked for: the files could otherwise plant history and
   * on-connect commands (sent on that user's IRC connections) in someone else's account.
   */
  async refuseExisting(emails: Iterable<string>): Promise<void> {
    if (this.merge) return;
    const taken: string[] = [];
    for (const email of new Set(emails)) if (await this.#users.byEmail(email)) taken.push(email);
    if (!taken.length) return;
    throw new ConfigError(
      `${taken.join(", ")} already ${taken.length > 1 ? "have accounts" : "has an account"} ` +
        `in ${this.config.home}; nothing was imported. Pass --merge to add the imported ` +
        `connections, on-connect commands and history to ${taken.length > 1 ? "them" : "it"}.`,
    );
  }

  /** The user with this email, created (without a usable password) when missing. */
  async user(email: string, roles: string[] = [], highlightKeywords: string[] = []) {
    const found = await this.#users.byEmail(email);
    if (found && !this.merge && !this.#madeHere.has(email)) await this.refuseExisting([email]);
    if (found) return found;
    // An empty hash matches no password: the user sets one through the invite link.
    const user = await this.#users.create(email, "", roles);
    if (highlightKeywords.length) await this.#users.update(user.id, { highlightKeywords });
    this.summary.users++;
    this.newUsers.push(email);
    this.#madeHere.add(email);
    return user;
  }

  /** The user's connection to the same server and nick, created when missing. */
  async connection(
    userId: number,
    want: WantedConnection,
    file: string,
  ): Promise<ConnectionRecord> {
    let target;
    try {
      target = parseIrcUrl(want.url);
    } catch (err) {
      throw fileError(
        file,
        `the connection "${want.name}" has no usable server (${(err as Error).message})`,
      );
    }
    const existing = await this.#connections.list(userId);
    const same = existing.find((c) => {
      try {
        return sameTarget(parseIrcUrl(c.url), target);
      } catch {
        return false;
      }
    });
    if (same) return same;
    const taken = existing.map((c) => c.connectionId);
    const id = want.connectionId && /^[\w-]{1,64}$/.test(want.connectionId) &&
        !taken.includes(want.connectionId)
      ? want.connectionId
      : newConnectionId(target.host, taken);
    this.summary.connections++;
    return await this.#connections.create({
      userId,
      connectionId: id,
      name: want.name.slice(0, 100) || target.host,
      url: want.url,
      onConnectCommands: want.onConnectCommands,
      wantedState: want.wantedState,
    });
  }

  /**
   * The conversation `name` on a connection ("" for the server's own messages), created when
   * missing; a channel the user was in is marked joined, so Parley joins it at start.
   */
  async conversation(
    connection: number,
    name: string,
    opts: { joined?: boolean; topic?: string; key?: string } = {},
  ): Promise<ConversationRecord> {
    const id = ircLower(name);
    const found = await this.#conversations.get(connection, id);
    // A channel's key, kept as Parley keeps one it learned, to join it with at each connect.
    const key = channelKey(opts.key);
    if (found) {
      if (key && found.key !== key) await this.#conversations.setKey(found.id, key);
      return found;
    }
    const made = await this.#conversations.ensure(connection, id, name);
    if (opts.joined) await this.#conversations.setJoined(made.id, true);
    if (key) await this.#conversations.setKey(made.id, key);
    if (opts.topic) await this.#conversations.setTopic(made.id, opts.topic.slice(0, 1000));
    this.summary.conversations++;
    return made;
  }

  /**
   * Adds one message or channel event (skipped when an earlier run imported it), with a progress
   * line now and then.
   */
  message(m: ImportedMessage): void {
    const added = this.#messages.add(m);
    const s = this.summary;
    if (m.fields === undefined) added ? s.messages++ : s.alreadyThere++;
    else added ? s.events++ : s.eventsAlreadyThere++;
    const now = performance.now();
    if (now - this.#lastProgress > 2000) {
      this.#lastProgress = now;
      const done = s.messages + s.events + s.alreadyThere + s.eventsAlreadyThere;
      const rate = Math.round(done / ((now - this.#started) / 1000));
      console.error(`importing: ${done.toLocaleString("en")} messages and events read (${rate}/s)`);
    }
  }

  /** Commits, closes, lets the search index take the new messages in, and prints the summary. */
  async finish(): Promise<void> {
    this.#messages.flush();
    this.#db.exec("PRAGMA optimize");
    this.#db.close();
    // The search worker indexes everything after the last id it has; wait for it here, so
    // that the history is searchable the moment the daemon starts.
    let store: Store | undefined;
    try {
      if (this.summary.messages) console.error("indexing the imported messages for search...");
      const sqlite = await openSqliteStore(this.config.home);
      store = sqlite;
      await sqlite.messages.searchable();
      const s = this.summary;
      const there = [
        ...(s.alreadyThere ? [`${s.alreadyThere} messages`] : []),
        ...(s.eventsAlreadyThere ? [`${s.eventsAlreadyThere} channel events`] : []),
      ];
      console.log(
        `imported: ${s.users} users, ${s.connections} connections, ${s.conversations} conversations, ${s.messages} messages, ${s.events} channel events` +
          (there.length ? ` (${there.join(" and ")} were already there)` : "") +
          (s.skipped
            ? ` (${s.skipped} skipped: no matching network, or not a message or channel event)`
            : ""),
      );
      for (const email of this.newUsers) {
        const invite = await createInvite({ config: this.config, store } as AppDeps, email);
        console.log(`invite for ${email}: ${invite.url}`);
      }
      if (this.newUsers.length) {
        console.log(
          "Each invite link sets that user's password (valid 24 hours; `parley user invite EMAIL` makes a new one).",
        );
      }
      const admins = await store.users.withRole("admin");
      if (!admins.length) {
        console.log("No admin yet: make one with `parley user set-role EMAIL admin`.");
      }
    } finally {
      await store?.close();
    }
  }
}
