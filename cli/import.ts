/** `parley import thelounge|convos DIR`: moves users and their history in from another client. */
import { resolve } from "node:path";
import { ConfigError, parseCommandLine } from "../config.ts";
import { ImportSession, SourceFolder } from "../import/common.ts";
import { importTheLounge } from "../import/thelounge.ts";
import { importConvos } from "../import/convos.ts";
import { baseUrlNote, commandConfig, isDir, lockHome, refuseOnPostgres } from "./home.ts";
import { IMPORT_USAGE } from "./help.ts";

/** Runs `parley import ...`. */
export async function importCommand(args: string[]): Promise<void> {
  const parsed = parseCommandLine(args, [
    { name: "domain" },
    { name: "email", multiple: true },
    { name: "merge", boolean: true },
  ]);
  if (parsed.help) return console.log(IMPORT_USAGE);
  const [kind, dir, ...extra] = parsed.positional;
  if (!kind || !dir || extra.length || !["thelounge", "convos"].includes(kind)) {
    throw new ConfigError(`which program and which folder?\n\n${IMPORT_USAGE}`);
  }
  if (kind === "convos" && parsed.options.size) {
    throw new ConfigError("--domain and --email are for thelounge (Convos users have emails)");
  }
  const source = resolve(dir);
  if (!(await isDir(source))) throw new ConfigError(`${source} is not a folder`);
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
    const folder = await SourceFolder.open(source);
    if (kind === "thelounge") {
      await importTheLounge(session, folder, {
        domain: parsed.options.get("domain")?.at(-1),
        emails,
      });
    } else {
      await importConvos(session, folder);
    }
    await session.finish();
    const note = session.newUsers.length ? baseUrlNote(config, parsed.env) : undefined;
    if (note) console.error(note);
  } finally {
    lock.close();
  }
}
