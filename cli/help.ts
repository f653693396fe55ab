/** Usage text of every command. */
import { fileForm, OPTIONS } from "../config.ts";
import denoJson from "../deno.json" with { type: "json" };

/** Parley's version. */
export const VERSION = denoJson.version;

const CONFIG_NOTE = `Every command reads the same configuration as the daemon: PARLEY_HOME (or
--home DIR) names the data folder, which must exist for every command but the daemon.`;

/** Where secrets belong: a command line is visible to every local user in the process list. */
const SECRETS_NOTE = [
  "Secrets are best given in a file or the environment; on the command line every local user",
  "sees them in the process list:",
  ...OPTIONS.filter((o) => o.secret).map((o) =>
    `  --${o.flag}: use --${fileForm(o).flag} FILE, ${fileForm(o).env}=FILE or ${o.env}`
  ),
].join("\n");

/** One line per option of the table: flag, variable, help and default. */
function optionLines(): string {
  const lines: string[] = [];
  // As wide as the longest flag and two spaces, so that no flag runs into its variable.
  const flags = OPTIONS.flatMap((o) => o.secret ? [o.flag, fileForm(o).flag] : [o.flag]);
  const width = Math.max(...flags.map((f) => f.length)) + 2;
  for (const o of OPTIONS) {
    const dflt = o.default ? ` (default ${o.default})` : "";
    lines.push(`  --${o.flag.padEnd(width)}${o.env}: ${o.help}${dflt}`);
    if (o.secret) {
      const f = fileForm(o);
      lines.push(`  --${f.flag.padEnd(width)}${f.env}: a file holding ${o.env} (preferred)`);
    }
  }
  return lines.join("\n");
}

/** `parley --help`. */
export const MAIN_USAGE = `parley ${VERSION}: a multiuser, persistent IRC proxy

Usage:
  parley [daemon] [--flag value ...]      run the server (the default)
  parley user list|add|delete|set-password|set-role|invite ...
                                          manage accounts (parley user --help)
  parley backup FILE [--force]            write a backup of the data folder (.tar.gz)
  parley restore FILE                     restore a backup into an empty data folder
  parley import thelounge|convos|znc DIR  move in from The Lounge, Convos or ZNC
  parley import soju DB [--logs DIR]      move in from soju
  parley store copy --to-file FILE        copy this installation into PostgreSQL
  parley version                          print the version
  parley help [COMMAND]                   this text, or a command's

${CONFIG_NOTE}

Configuration flags (each also an environment variable; a flag wins):
${optionLines()}

${SECRETS_NOTE}
`;

/** `parley daemon --help`. */
export const DAEMON_USAGE = `Usage: parley [daemon] [--flag value ...]

Runs the server. One daemon per data folder: a second one refuses to start.

Flags (each also an environment variable; a flag wins):
${optionLines()}

${SECRETS_NOTE}
`;

/** `parley user --help`. */
export const USER_USAGE = `Usage:
  parley user list                        list users and their roles (tab-separated; a third
                                          column says "suspended")
  parley user add EMAIL [ROLE...]         create a user; the password is read from stdin
                                          (their first login adds the default connection)
  parley user delete EMAIL                delete a user with their connections and history
  parley user set-password EMAIL          read a new password from stdin; ends their sessions
                                          (on SQLite, with the daemon stopped)
  parley user set-role EMAIL [ROLE...]    replace a user's roles (admin, bot; none clears them)
  parley user suspend EMAIL               end their sessions and stop their IRC connections;
                                          nobody logs in until resume (on SQLite, with the
                                          daemon stopped: the Users page does it while it runs)
  parley user resume EMAIL                end the suspension; their connections start again
  parley user invite EMAIL                print an invite link (a password reset for a user)

${CONFIG_NOTE}
`;

/** `parley backup --help`. */
export const BACKUP_USAGE = `Usage: parley backup FILE [--force]

Writes a consistent copy of the data folder to FILE (a .tar.gz), also while the daemon runs:
the database (parley.db, SQLite's online backup), uploaded files (files/), secret, vapid.json
(the Web Push keys) and bot.json.
search.db is left out: it is derived from parley.db and rebuilt at the next start.
A FILE that exists is refused; --force replaces it.

${CONFIG_NOTE}
`;

/** `parley restore --help`. */
export const RESTORE_USAGE = `Usage: parley restore FILE [--max-size BYTES]

Restores a backup written by \`parley backup\` (or re-packed with GNU tar) into the data
folder, which must be empty or not exist yet (it is created). Start the daemon afterwards; it
rebuilds the search index.

Before writing anything it refuses a backup that would fill the disk, or expand to more than
50 times its size (at least 64 MB): --max-size BYTES sets that bound for a genuine one. A
failed restore leaves the data folder empty.
`;

/** `parley import --help`. */
export const IMPORT_USAGE = `Usage:
  parley import thelounge DIR [--domain DOMAIN] [--email NAME=EMAIL ...] [--merge]
  parley import convos DIR [--merge]
  parley import znc DIR [--domain DOMAIN] [--email NAME=EMAIL ...] [--timezone ZONE] [--merge]
  parley import soju DB [--logs DIR] [--domain DOMAIN] [--email NAME=EMAIL ...]
                        [--timezone ZONE] [--merge]

Moves users, their connections, conversations and whole history in from another IRC client's
or bouncer's home folder, keeping the original timestamps. Stop the daemon first. Running it
again (with --merge, as its users exist by then) imports nothing twice. Each new user gets an
invite link to set a password (valid 24 hours; make a new one with \`parley user invite EMAIL\`).

  thelounge DIR   a The Lounge 4.x home folder (users/*.json, logs/*.sqlite3).
  convos DIR      a Convos 8.x home folder (file backend: one folder per user email).
  znc DIR         a ZNC 1.8 data folder (configs/znc.conf, the sasl module's settings, the log
                  module's files); log times are read in each user's Timezone, or --timezone.
  soju DB         a soju database: a SQLite file, or postgres://USER@HOST/DATABASE (the
                  password in PGPASSWORD: every local user sees a command line);
                  history from its db message store, and with --logs DIR from its fs store
                  (DIR/USER/NETWORK/TARGET/YYYY-MM-DD.log, in soju's machine's local time:
                  --timezone ZONE when that is not this machine's).
  --domain DOMAIN, --email NAME=EMAIL
                  The Lounge, ZNC and soju users have names, not emails: --domain example.org
                  makes alice@example.org, and --email alice=a@b.c sets one user's address.
  --timezone ZONE an IANA zone (Europe/Berlin) for times written without one.
  --merge         add the import to accounts that already exist here; without it, a user
                  who has an account stops the import before anything is written.

The folder is not trusted: links that lead out of it are skipped, a log line longer than
64 KB is skipped, and errors name a file without quoting it.

${CONFIG_NOTE}
`;

/** `parley store --help`. */
export const STORE_USAGE = `Usage: parley store copy --to-file FILE
       PARLEY_STORE_COPY_TO=postgres://USER:PASSWORD@HOST/DATABASE parley store copy

The target, a postgres://USER:PASSWORD@HOST/DATABASE URL, is read from FILE (--to-file FILE
or PARLEY_STORE_COPY_TO_FILE=FILE) or from PARLEY_STORE_COPY_TO. \`--to URL\` works too, but
shows the password to every local user in the process list.

Copies the data folder's database (users, sessions, settings, connections, conversations,
history, notifications, files, push subscriptions) into an empty PostgreSQL database, then
compares the row counts of every table. Stop the daemon first: the copy locks the data folder.
Afterwards start Parley with PARLEY_DATABASE_URL_FILE (or PARLEY_DATABASE_URL) giving the same URL.

${CONFIG_NOTE}
`;
