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

/**
 * Writes `messages` to a new file of `dir` at once (the process is stopping); returns its path.
 * Throws when the file cannot be written: the caller logs what is lost.
 */
export function writeSpool(dir: string, messages: Spilled[]): string {
  Deno.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const path = join(dir, `${Date.now()}-${Deno.pid}.jsonl`);
  const text = messages.map((m) => JSON.stringify(m)).join("\n") + "\n";
  // A name of its own, renamed when whole: a start never reads half a file.
  Deno.writeTextFileSync(path + ".part", text, { mode: 0o600 });
  Deno.renameSync(path + ".part", path);
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

/** What a start needs of the store to append the held messages. */
interface SpoolTarget {
  append(msg: NewMessage): Promise<unknown>;
  flush(): Promise<void>;
  /** Which of `ids` are stored already. */
  stored(ids: number[]): Promise<Set<number>>;
}

/**
 * Appends the messages of every file in `dir`, each at its own time, and waits until they are
 * committed. A message whose id is stored already (its commit went through) is skipped.
 */
export async function replaySpool(dir: string, target: SpoolTarget): Promise<number> {
  let names: string[];
  try {
    names = [...Deno.readDirSync(dir)].filter((e) => e.isFile && e.name.endsWith(".jsonl"))
      .map((e) => e.name).sort();
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return 0;
    throw err;
  }
  let appended = 0;
  for (const name of names) {
    const path = join(dir, name);
    const lines = (await Deno.readTextFile(path)).split("\n").filter((l) => l !== "");
    // Once read they are in the writer's hands, as a live line is: a stop before they are
    // committed keeps them again, in a file of their own.
    await Deno.remove(path);
    const messages: Spilled[] = [];
    let bad = 0;
    for (const line of lines) {
      const m = parse(line);
      if (m) messages.push(m);
      else bad++;
    }
    const ids = messages.flatMap((m) => m.id === undefined ? [] : [m.id]);
    const there = ids.length ? await target.stored(ids) : new Set<number>();
    const due = messages.filter((m) => m.id === undefined || !there.has(m.id));
    for (const { id: _, ...m } of due) void target.append(m);
    await target.flush();
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
