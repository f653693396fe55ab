/** The `parley` command: reads the subcommand and hands over to its module under cli/. */
import { ConfigError } from "./config.ts";
import {
  BACKUP_USAGE,
  DAEMON_USAGE,
  IMPORT_USAGE,
  MAIN_USAGE,
  RESTORE_USAGE,
  STORE_USAGE,
  USER_USAGE,
  VERSION,
} from "./cli/help.ts";

const USAGE: Record<string, string> = {
  daemon: DAEMON_USAGE,
  user: USER_USAGE,
  backup: BACKUP_USAGE,
  restore: RESTORE_USAGE,
  import: IMPORT_USAGE,
  store: STORE_USAGE,
};

/** Runs one command line. */
async function run(args: string[]): Promise<void> {
  const [command = "daemon", ...rest] = args;
  const wantsHelp = rest.includes("--help") || rest.includes("-h");
  if (command === "--help" || command === "-h") return console.log(MAIN_USAGE);
  if (command === "--version" || command === "-V" || command === "version") {
    return console.log(VERSION);
  }
  if (command === "help") {
    return console.log(USAGE[rest[0]] ?? MAIN_USAGE);
  }
  if (command.startsWith("--")) return run(["daemon", ...args]);
  if (wantsHelp && command in USAGE) return console.log(USAGE[command]);
  // Each command's module is loaded only when it runs: the daemon stays resident for months
  // and should not hold the code of the others (the store copy's PostgreSQL client, the
  // importers) in memory.
  if (command === "daemon") return await (await import("./cli/daemon.ts")).daemon(rest);
  if (command === "user") return await (await import("./cli/user.ts")).userCommand(rest);
  if (command === "backup") return await (await import("./cli/backup.ts")).backupCommand(rest);
  if (command === "restore") return await (await import("./cli/restore.ts")).restoreCommand(rest);
  if (command === "import") return await (await import("./cli/import.ts")).importCommand(rest);
  if (command === "store") return await (await import("./cli/store.ts")).storeCommand(rest);
  throw new ConfigError(`unknown command "${command}"\n\n${MAIN_USAGE}`);
}

if (import.meta.main) {
  try {
    await run(Deno.args);
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(`parley: ${err.message}`);
      Deno.exit(2);
    }
    // Said and a failure (exit 1): rethrown, it reached the daemon's handler of stray errors,
    // which logs them and goes on, and the process then ended with 0, a clean stop to systemd.
    console.error(`parley: ${err instanceof Error ? err.stack ?? err.message : String(err)}`);
    Deno.exit(1);
  }
}
