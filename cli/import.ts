/**
 * `parley import thelounge|convos|znc DIR` and `parley import soju DB`: moves users and their
 * history in from another client or bouncer.
 */
import { resolve } from "node:path";
import { ConfigError, parseCommandLine } from "../config.ts";
import { ImportSession, SourceFolder } from "../import/common.ts";
import { importTheLounge } from "../import/thelounge.ts";
import { importConvos } from "../import/convos.ts";
import { importZnc } from "../import/znc.ts";
import { importSoju } from "../import/soju.ts";
import { openSojuDb } from "../import/soju_db.ts";
import { baseUrlNote, commandConfig, isDir, lockHome, refuseOnPostgres } from "./home.ts";
import { IMPORT_USAGE } from "./help.ts";

const KINDS = ["thelounge", "convos", "znc", "soju"];
/** The options each kind takes (beside --merge). */
const OPTIONS: Record<string, string[]> = {
  thelounge: ["domain", "email"],
  convos: [],
  znc: ["domain", "email", "timezone"],
  soju: ["domain", "email", "timezone", "logs"],
};

/** A database URL as messages may show it: without its password. */
function shownUrl(url: string): string {
  try {
    const u = new URL(url);
    u.password = "";
    return u.href;
  } catch {
    return "the PostgreSQL database";
  }
}

async function isFile(path: string): Promise<boolean> {
  try {
    return (await Deno.stat(path)).isFile;
  } catch {
    return false;
  }
}

/** Runs `parley import ...`. */
export async function importCommand(args: string[]): Promise<void> {
  const parsed = parseCommandLine(args, [
    { name: "domain" },
    { name: "email", multiple: true },
    { name: "merge", boolean: true },
    { name: "timezone" },
    { name: "logs" },
  ]);
  if (parsed.help) return console.log(IMPORT_USAGE);
  const [kind, dir, ...extra] = parsed.positional;
  if (kind && !KINDS.includes(kind)) {
    throw new ConfigError(
      `"${kind}" is not a program Parley imports from: ${KINDS.join(", ")}\n\n${IMPORT_USAGE}`,
    );
  }
  if (!kind || !dir || extra.length) {
    throw new ConfigError(`which program and which folder?\n\n${IMPORT_USAGE}`);
  }
  const allowed = OPTIONS[kind];
  for (const name of parsed.options.keys()) {
    if (!allowed.includes(name)) {
      throw new ConfigError(
        allowed.length
          ? `--${name} is not for ${kind} (it takes ${allowed.map((o) => `--${o}`).join(", ")})`
          : `--${name} is not for ${kind} (Convos users have emails)`,
      );
    }
  }
  const isUrl = kind === "soju" && /^postgres(ql)?:\/\//i.test(dir);
  const source = isUrl ? dir : resolve(dir);
  if (kind === "soju") {
    if (!isUrl && !(await isFile(source))) throw new ConfigError(`${source} is not a file`);
  } else if (!(await isDir(source))) throw new ConfigError(`${source} is not a folder`);
  const logs = parsed.options.get("logs")?.at(-1);
  if (logs && !(await isDir(resolve(logs)))) {
    throw new ConfigError(`${resolve(logs)} is not a folder`);
  }
  const emails = new Map<string, string>();
  for (const pair of parsed.options.get("email") ?? []) {
    const at = pair.indexOf("=");
    if (at < 1) throw new ConfigError(`--email takes NAME=ADDRESS, not "${pair}"`);
    emails.set(pair.slice(0, at), pair.slice(at + 1));
  }
  const config = await commandConfig(parsed.env);
  refuseOnPostgres(
    config,
    "import into a data folder without it, then `parley store copy` (docs/deployment.md)",
  );
  const lock = await lockHome(
    config.home,
    "importing (parley import writes the database directly)",
  );
  try {
    const session = await ImportSession.open(config, { merge: parsed.switches.has("merge") });
    const domain = parsed.options.get("domain")?.at(-1);
    const timezone = parsed.options.get("timezone")?.at(-1);
    if (kind === "soju") {
      const db = await openSojuDb(source);
      try {
        await importSoju(session, db, isUrl ? shownUrl(source) : source, {
          domain,
          emails,
          timezone,
          logs: logs ? await SourceFolder.open(resolve(logs)) : undefined,
        });
      } finally {
        await db.close();
      }
    } else {
      const folder = await SourceFolder.open(source);
      if (kind === "thelounge") await importTheLounge(session, folder, { domain, emails });
      else if (kind === "znc") await importZnc(session, folder, { domain, emails, timezone });
      else await importConvos(session, folder);
    }
    await session.finish();
    const note = session.newUsers.length ? baseUrlNote(config, parsed.env) : undefined;
    if (note) console.error(note);
  } finally {
    lock.close();
  }
}
