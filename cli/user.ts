/** `parley user ...`: account maintenance from the shell (a locked-out admin, scripted setups). */
import { type Config, ConfigError, parseCommandLine } from "../config.ts";
import { openStore, type Store } from "../store/mod.ts";
import type { UserRecord } from "../store/users.ts";
import type { PgStore } from "../store/pg/mod.ts";
import { join } from "node:path";
import { hashPassword } from "../lib/password.ts";
import { email as emailSchema } from "../protocol/contract/fields.ts";
import { createInvite } from "../routes/invite.ts";
import type { AppDeps } from "../http/env.ts";
import { baseUrlNote, commandConfig, databaseError, lockHome } from "./home.ts";
import { USER_USAGE } from "./help.ts";
import { passwordGeneration, type Revocation } from "../bouncer/credentials.ts";
import { checkDeletable, checkRoles, checkSuspendable } from "../store/user_rules.ts";
import { DomainError } from "../lib/errors.ts";

/** The roles an account can hold. */
export const ROLES = ["admin", "bot"];
const MIN_PASSWORD = 10;

/** The first line of stdin (a password piped in or typed), at most 64 KiB read. */
async function readPassword(): Promise<string> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of Deno.stdin.readable) {
    chunks.push(chunk);
    size += chunk.length;
    if (size > 65536 || chunk.includes(10)) break;
  }
  const text = new TextDecoder().decode(new Uint8Array(chunks.flatMap((c) => [...c])));
  const password = text.split(/\r?\n/)[0];
  if (password.length < MIN_PASSWORD) {
    throw new ConfigError(
      `the password (read from stdin) must be at least ${MIN_PASSWORD} characters`,
    );
  }
  return password;
}

function validEmail(text: string | undefined): string {
  if (!text) throw new ConfigError(`an EMAIL is needed\n\n${USER_USAGE}`);
  const parsed = emailSchema.safeParse(text);
  if (!parsed.success) throw new ConfigError(`not an email address: ${text}`);
  return parsed.data;
}

function validRoles(roles: string[]): string[] {
  const unknown = roles.filter((r) => !ROLES.includes(r));
  if (unknown.length) {
    throw new ConfigError(`unknown role ${unknown.join(", ")} (roles: ${ROLES.join(", ")})`);
  }
  return [...new Set(roles)];
}

async function existing(store: Store, email: string): Promise<UserRecord> {
  const user = await store.users.byEmail(email);
  if (!user) throw new ConfigError(`no such user: ${email}`);
  return user;
}

/** Prints an invite link for `email` (the config's secret signs it, the base URL starts it). */
export async function printInvite(config: Config, store: Store, email: string): Promise<string> {
  const invite = await createInvite({ config, store } as AppDeps, email);
  return invite.url;
}

/**
 * The secret to sign with (invite links, messages to the nodes). On a database nodes share it must
 * be theirs: the first node's start keeps a fingerprint of it, and the daemon refuses another.
 * Signed with another, a link would be refused by every node and a message read by none, so the
 * command refuses too, naming where the right one is. It claims no fingerprint: a node's start
 * does (a command run before any node would otherwise impose its secret on them).
 */
async function nodesSecret(
  config: Config,
  store: Store,
  flags: Record<string, string>,
): Promise<string> {
  if (!store.backend.clustered) return config.secret;
  // Loaded only then, so that a SQLite install never loads the PostgreSQL client.
  const { pgStoreOf } = await import("../store/pg/mod.ts");
  const { secretFingerprint } = await import("../store/pg/secret_fingerprint.ts");
  const [stored] = await pgStoreOf(store).sql<{ fingerprint: string }[]>`
    SELECT fingerprint FROM installation_secret`;
  const file = join(config.home, "secret");
  const copy = "give this command the nodes' PARLEY_SECRET (best as PARLEY_SECRET_FILE), or " +
    `copy the secret file of a node's data folder to ${file}`;
  if (!config.secret) {
    throw new ConfigError(`no secret to sign with (no PARLEY_SECRET, no ${file}): ${copy}`);
  }
  if (stored && stored.fingerprint !== await secretFingerprint(config.secret)) {
    const env = { ...Deno.env.toObject(), ...flags };
    const given = env.PARLEY_SECRET_FILE
      ? `PARLEY_SECRET_FILE (${env.PARLEY_SECRET_FILE})`
      : env.PARLEY_SECRET
      ? "PARLEY_SECRET"
      : file;
    throw new ConfigError(
      `${given} is not the secret of this database's nodes (the database keeps a fingerprint ` +
        `of it): ${copy}`,
    );
  }
  return config.secret;
}

/**
 * Tells the running nodes (PostgreSQL) to end the IRC sessions `r` revokes; `done` starts the
 * error (what was done, or not). A node that does not answer within a few seconds (one with another PARLEY_SECRET
 * cannot read the message) is an error: IRC clients logged in there stay attached.
 */
async function tellNodes(config: Config, store: Store, r: Revocation, done: string) {
  if (!config.databaseUrl) return;
  // Loaded only then, so that a SQLite install never loads the PostgreSQL client.
  const { revokeOnNodes } = await import("../cluster/remote.ts");
  const heard = await revokeOnNodes(store as PgStore, config.secret, r).catch((err) => {
    throw new ConfigError(`${done} the running nodes could not be told (${err.message})`);
  });
  if (heard.answered < heard.nodes) {
    throw new ConfigError(
      `${done} ${heard.nodes - heard.answered} of the ${heard.nodes} running Parley nodes ` +
        "did not answer (do they have this PARLEY_SECRET?), and IRC clients logged in there " +
        "stay attached until they restart",
    );
  }
}

/** Runs `parley user SUB ...`. */
export async function userCommand(args: string[]): Promise<void> {
  const parsed = parseCommandLine(args);
  const [sub, address, ...rest] = parsed.positional;
  if (parsed.help || !sub || sub === "help") {
    console.log(USER_USAGE);
    return;
  }
  const known = [
    "list",
    "add",
    "delete",
    "set-password",
    "set-role",
    "invite",
    "suspend",
    "resume",
  ];
  if (!known.includes(sub)) throw new ConfigError(`unknown user command "${sub}"\n\n${USER_USAGE}`);
  // Arguments first, so that a typo costs nothing and reads no password.
  const email = sub === "list" ? "" : validEmail(address);
  const roles = sub === "add" || sub === "set-role" ? validRoles(rest) : [];
  const config = await commandConfig(parsed.env);
  // On SQLite, deleting or suspending a user or setting a password while the daemon runs would
  // leave IRC connections and the IRC clients that logged in open there (nothing reaches it); on
  // PostgreSQL every node is told (tellNodes).
  const reachesDaemon = ["delete", "set-password", "suspend", "resume"].includes(sub);
  const lock = !config.databaseUrl && reachesDaemon
    ? await lockHome(
      config.home,
      sub === "delete"
        ? "deleting a user"
        : sub === "set-password"
        ? `setting a password (or reset it while it runs: \`parley user invite ${email}\` ` +
          "prints a link)"
        : `changing a suspension (or do it while it runs: the Users page, or BouncerServ's ` +
          `\`user update ${email} -enabled ${sub === "resume"}\`)`,
    )
    : undefined;
  // A database that cannot be used is one line (databaseError), here and while the command runs.
  const failed = (err: unknown) =>
    config.databaseUrl ? databaseError("PARLEY_DATABASE_URL", config.databaseUrl, err) : err;
  const store = await openStore(config.home, config.databaseUrl).catch((err) => {
    lock?.close();
    throw failed(err);
  });
  try {
    // Commands that sign (links, messages to the nodes) do so with the nodes' secret, or refuse
    // before anything is changed.
    const signing = reachesDaemon || sub === "invite"
      ? { ...config, secret: await nodesSecret(config, store, parsed.env) }
      : config;
    if (sub === "list") {
      for (const u of await store.users.list(undefined, 1_000_000)) {
        console.log(`${u.email}\t${u.roles.join(",")}${u.suspended ? "\tsuspended" : ""}`);
      }
    } else if (sub === "add") {
      if (await store.users.byEmail(email)) throw new ConfigError(`${email} already exists`);
      const password = await readPassword();
      // Owed its default connection: the daemon adds it at the first login (nothing here can).
      await store.users.create(email, await hashPassword(password), roles, true);
      console.log(`added ${email}`);
    } else if (sub === "delete") {
      const user = await existing(store, email);
      await checkDeletable(store.users, user);
      // Every node ends the user's IRC clients first: when one cannot be told (another secret),
      // nothing is deleted.
      const ended: Revocation = { userId: user.id, kind: "user" };
      await tellNodes(signing, store, ended, `${email} not deleted:`);
      if (config.databaseUrl) {
        // Their IRC connections stop before their rows go, as a deletion through the API does:
        // the last lines a stopping connection reads are stored into conversations that exist.
        // The node keeps the user's lock until the rows are gone, so no node starts them again.
        // Loaded only then, so that a SQLite install never loads the PostgreSQL client.
        const { stopDeletedUser } = await import("../cluster/remote.ts");
        await stopDeletedUser(store as PgStore, signing.secret, user.id).catch((err) => {
          throw new ConfigError(
            `${email} not deleted: the node running them did not stop their IRC connections ` +
              `(${err.message})`,
          );
        });
      }
      await store.files.removeUser(user.id);
      await store.users.remove(user.id);
      // A client that logged in meanwhile.
      await tellNodes(signing, store, ended, `deleted ${email}, but`);
      console.log(`deleted ${email}`);
    } else if (sub === "set-password") {
      const user = await existing(store, email);
      const password = await readPassword();
      const passwordHash = await hashPassword(password);
      await store.users.update(user.id, { passwordHash });
      await store.sessions.removeForUser(user.id);
      const generation = await passwordGeneration(passwordHash);
      await tellNodes(
        signing,
        store,
        { userId: user.id, kind: "password", generation },
        `password set for ${email}, but`,
      );
      console.log(`password set for ${email}`);
    } else if (sub === "set-role") {
      const user = await existing(store, email);
      await checkRoles(store.users, user, roles);
      await store.users.update(user.id, { roles });
      console.log(`${email}: ${roles.join(",") || "(no roles)"}`);
    } else if (sub === "suspend") {
      const user = await existing(store, email);
      await checkSuspendable(store.users, user, undefined);
      // The mark first: a login checked after it is refused, wherever it comes.
      await store.users.update(user.id, { suspended: true });
      await store.sessions.removeForUser(user.id);
      await tellNodes(
        signing,
        store,
        { userId: user.id, kind: "suspended" },
        `${email} suspended, but`,
      );
      if (config.databaseUrl) {
        const { tellSuspension } = await import("../cluster/remote.ts");
        await tellSuspension(store as PgStore, signing.secret, user.id, true).catch((err) => {
          throw new ConfigError(
            `${email} suspended, but the node running them did not stop their IRC connections ` +
              `(${err.message}); they stop at its restart`,
          );
        });
      }
      console.log(`suspended ${email}`);
    } else if (sub === "resume") {
      const user = await existing(store, email);
      await store.users.update(user.id, { suspended: false });
      if (config.databaseUrl) {
        // The node that kept the user starts them; with none, a node's next scan takes them.
        const { tellSuspension } = await import("../cluster/remote.ts");
        await tellSuspension(store as PgStore, signing.secret, user.id, false).catch((err) => {
          throw new ConfigError(
            `${email} may log in again, but the node running them did not start their IRC ` +
              `connections (${err.message}); they start at its restart`,
          );
        });
      }
      console.log(`${email} may log in again`);
    } else if (sub === "invite") {
      // A new address gets a registration link; an existing user a password reset.
      console.log(await printInvite(signing, store, email));
      const note = baseUrlNote(config, parsed.env);
      if (note) console.error(note);
    }
  } catch (err) {
    // A refusal of the rules the API keeps too (the last admin), in its words.
    if (err instanceof DomainError) throw new ConfigError(err.message);
    throw failed(err);
  } finally {
    await store.close();
    lock?.close();
  }
}
