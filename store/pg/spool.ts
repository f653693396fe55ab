/**
 * Messages the writer gave up at a stop because PostgreSQL did not answer, kept in the data folder
 * and appended at the next start: a stop (an upgrade, a reboot) during an outage loses none of
 * them. One file per stop, a message a line, readable by the user Parley runs as only.
 */
import { join } from "node:path";
import { log } from "../../lib/log.ts";
import { TYPES } from "../../protocol/messages.ts";
import type { NewMessage } from "../message_types.ts";

/** The folder of the data folder the files are kept in. */
const FOLDER = "held-messages";

/**
 * A message given up; `id` is the id its batch took, if it took one (its commit may have gone
 * through with only the answer lost).
 */
export interface Spilled extends NewMessage {
  id?: number;
}

/** Where a data folder's held messages are kept. */
export function spoolDir(home: string): string {
  return join(home, FOLDER);
}

/** A file written whole, synced, then renamed into place: a start never reads half of one. */
function writeWhole(path: string, messages: Spilled[]): void {
  const text = messages.map((m) => JSON.stringify(m)).join("\n") + "\n";
  const file = Deno.openSync(path + ".part", {
    write: true,
    create: true,
    truncate: true,
    mode: 0o600,
  });
  try {
    const bytes = new TextEncoder().encode(text);
    for (let at = 0; at < bytes.length;) at += file.writeSync(bytes.subarray(at));
    file.syncSync();
  } finally {
    file.close();
  }
  Deno.renameSync(path + ".part", path);
}

/** Files of one stop are named by time, pid and a count, so two in one millisecond never meet. */
let written = 0;

/**
 * Writes `messages` to a new file of `dir` at once (the process is stopping); returns its path.
 * Throws when the file cannot be written: the caller logs what is lost.
 */
export function writeSpool(dir: string, messages: Spilled[]): string {
  Deno.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const path = join(dir, `${Date.now()}-${Deno.pid}-${written++}.jsonl`);
  writeWhole(path, messages);
  return path;
}

/** One line of a file, or undefined when it is not a message as `writeSpool` writes them. */
function parse(line: string): Spilled | undefined {
  let m: Record<string, unknown>;
  try {
    m = JSON.parse(line);
  } catch {
    return undefined;
  }
  const int = (v: unknown) => Number.isSafeInteger(v);
  const text = (v: unknown) => typeof v === "string";
  const optional = (v: unknown, ok: (v: unknown) => boolean) => v === undefined || ok(v);
  if (
    !m || typeof m !== "object" || !int(m.conversation) || !int(m.userId) || !text(m.from) ||
    !text(m.text) || !TYPES.includes(m.type as never) || !optional(m.ts, int) ||
    !optional(m.id, int) || !optional(m.fields, text) || !optional(m.serverMsgid, text) ||
    !optional(m.replyTo, text)
  ) return undefined;
  return m as unknown as Spilled;
}

/** What a start needs of the store to store the held messages. */
interface SpoolTarget {
  /** Appends a message under the id it took before. */
  append(msg: NewMessage, id: number): Promise<unknown>;
  flush(): Promise<void>;
  /** Which of `ids` are stored already. */
  stored(ids: number[]): Promise<Set<number>>;
  /** `n` new message ids. */
  newIds(n: number): Promise<number[]>;
}

/**
 * Stores the messages of every file in `dir`, each at its own time and under its own id, and
 * removes each file once they are committed. Until then the file stays: a start that stops (or
 * meets another outage) before leaves it for the next, and what it had stored already is known by
 * its id. A message that never took an id is given one, written into the file, first. A file that
 * cannot be read is renamed `.bad` and left for its owner.
 */
export async function replaySpool(dir: string, target: SpoolTarget): Promise<number> {
  let names: string[];
  try {
    names = [...Deno.readDirSync(dir)].filter((e) => !e.isDirectory && e.name.endsWith(".jsonl"))
      .map((e) => e.name).sort();
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return 0;
    throw err;
  }
  let appended = 0;
  for (const name of names) {
    const path = join(dir, name);
    let lines: string[];
    try {
      lines = (await Deno.readTextFile(path)).split("\n").filter((l) => l !== "");
    } catch (err) {
      if (err instanceof Deno.errors.NotFound) continue;
      log.warn("held messages not readable; the file is left as .bad", {
        file: name,
        error: String(err),
      });
      // A file that cannot be renamed either is tried again at the next start.
      await Deno.rename(path, path + ".bad").catch(() => {}); // why: nothing of it was stored
      continue;
    }
    const messages: Spilled[] = [];
    let bad = 0;
    for (const line of lines) {
      const m = parse(line);
      if (m) messages.push(m);
      else bad++;
    }
    const missing = messages.filter((m) => m.id === undefined);
    if (missing.length) {
      const ids = await target.newIds(missing.length);
      missing.forEach((m, i) => m.id = ids[i]);
      writeWhole(path, messages);
    }
    const there = await target.stored(messages.map((m) => m.id!));
    const due = messages.filter((m) => !there.has(m.id!));
    for (const { id, ...m } of due) void target.append(m, id!);
    await target.flush();
    await Deno.remove(path);
    appended += due.length;
    log.info("held messages stored", {
      file: name,
      stored: due.length,
      ...(there.size ? { stored_before: there.size } : {}),
      ...(bad ? { unreadable_lines: bad } : {}),
    });
  }
  return appended;
}
