/**
 * `parley import convos DIR`: a Convos 8.x home folder, file backend. One folder per user
 * (named by email) with `user.json`; in it one folder per connection with `connection.json`
 * (its URL, on-connect commands and conversations), the connection's own log
 * `YYYY/MM.log`, and one log per conversation and month, `YYYY/MM/NAME.log` ("/" in a name is
 * written %2F). A log line is `YYYY-MM-DDTHH:MM:SS F MESSAGE` in UTC, where the optional F is
 * a flag digit (1 = highlight) and MESSAGE is `<nick> text`, `-nick- text` (notice) or
 * `* nick text` (action). Convos 8 logs no channel events: joins, parts, kicks, quits, nick
 * changes, topics and +o/+v are `state` events (lib/Convos/Core/Connection/Irc.pm), which its
 * file backend does not write (it logs `message` events only), and another channel mode is a
 * notice of the connection in its own log ("#chan changed mode +m", without who set it),
 * imported as that notice. The `-!-` forms its backend still declares (parts, kicks, nick
 * changes) were last written by its 2016 development versions; such a line is skipped and
 * counted.
 */
import { join } from "node:path";
import { ConfigError } from "../config.ts";
import { ircLower } from "../lib/casefold.ts";
import type { MessageType } from "../protocol/events.ts";
import { checkEmail, fileError, ImportSession, readJson, SourceFolder } from "./common.ts";
import { readLines } from "./lines.ts";

const LINE = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2}) (?:(\d) )?\s*(.*)$/;
const CHANNEL = /^[#&+!]/;

/**
 * A log line's message, or undefined for anything else (a `-!-` line, anything unknown).
 *
 * @internal test seam
 */
export function parseConvosMessage(
  message: string,
): { type: MessageType; from: string; text: string } | undefined {
  let m = /^<([^\s>]+)> ?(.*)$/s.exec(message);
  if (m) return { type: "private", from: m[1], text: m[2] };
  m = /^-([^\s>]+)- ?(.*)$/s.exec(message);
  if (m && m[1] !== "!") return { type: "notice", from: m[1], text: m[2] };
  m = /^\* (\S+) ?(.*)$/s.exec(message);
  if (m) return { type: "action", from: m[1], text: m[2] };
  return undefined;
}

/** Log files of a connection by conversation name ("" = the connection's own), oldest first. */
async function logFiles(folder: SourceFolder, connDir: string): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>();
  const add = (name: string, path: string) => out.set(name, [...(out.get(name) ?? []), path]);
  for (const year of await folder.list(connDir)) {
    if (!year.isDirectory || !/^\d{4}$/.test(year.name)) continue;
    for (const month of await folder.list(year.path)) {
      if (month.isFile && /^\d{2}\.log$/.test(month.name)) add("", month.path);
      if (!month.isDirectory || !/^\d{2}$/.test(month.name)) continue;
      for (const f of await folder.list(month.path)) {
        if (!f.isFile || !f.name.endsWith(".log")) continue;
        add(f.name.slice(0, -4).replaceAll("%2F", "/"), f.path);
      }
    }
  }
  // Year and month folders were listed in order, so each list is already chronological.
  return out;
}

const str = (v: unknown) => (typeof v === "string" ? v : "");

/** A user folder of the Convos home, read before anything is written. */
interface ConvosUser {
  dir: string;
  file: string;
  email: string;
  json: Record<string, unknown>;
}

/** Imports every user of a Convos home folder. */
export async function importConvos(session: ImportSession, folder: SourceFolder): Promise<void> {
  const dir = folder.root;
  const users: ConvosUser[] = [];
  for (const u of await folder.list(dir)) {
    if (!u.isDirectory || !/.@./.test(u.name)) continue;
    const file = join(u.path, "user.json");
    if (!(await folder.inside(file))) continue; // not a user folder, or a link out of it
    const json = await readJson(file);
    users.push({ dir: u.path, file, email: checkEmail(str(json.email) || u.name, file), json });
  }
  if (!users.length) {
    throw new ConfigError(`${dir} is not a Convos home folder (no EMAIL/user.json in it)`);
  }
  await session.refuseExisting(users.map((u) => u.email));
  for (const { dir: userDir, email, json } of users) {
    // Convos admins stay admins; its other roles have no meaning here.
    const roles = Array.isArray(json.roles) && json.roles.includes("admin") ? ["admin"] : [];
    const keywords = Array.isArray(json.highlight_keywords)
      ? json.highlight_keywords.filter((k): k is string => typeof k === "string" && k !== "")
      : [];
    const user = await session.user(email, roles, keywords);
    for (const c of await folder.list(userDir)) {
      const connFile = join(c.path, "connection.json");
      if (!c.isDirectory || !(await folder.inside(connFile))) continue;
      await importConnection(session, folder, user.id, c.path, connFile);
    }
  }
}

async function importConnection(
  session: ImportSession,
  folder: SourceFolder,
  userId: number,
  connDir: string,
  file: string,
): Promise<void> {
  const json = await readJson(file);
  const url = str(json.url);
  const nick = (() => {
    try {
      return new URL(url).searchParams.get("nick") ?? "";
    } catch {
      return "";
    }
  })();
  const connection = await session.connection(userId, {
    connectionId: str(json.connection_id),
    name: str(json.name),
    url,
    onConnectCommands: Array.isArray(json.on_connect_commands)
      ? json.on_connect_commands.filter((x): x is string => typeof x === "string")
      : [],
    wantedState: json.wanted_state === "disconnected" ? "disconnected" : "connected",
  }, file);
  const known = new Map<string, { name: string; topic: string; frozen: string }>();
  for (const v of Array.isArray(json.conversations) ? json.conversations : []) {
    const name = str(v?.name) || str(v?.conversation_id);
    if (!name) continue;
    known.set(ircLower(name), { name, topic: str(v.topic), frozen: str(v.frozen) });
    // A channel is joined unless Convos marked it frozen (parted, kicked, banned...).
    await session.conversation(connection.id, name, {
      joined: CHANNEL.test(name) && str(v.frozen) === "",
      topic: str(v.topic),
    });
  }
  for (const [id, files] of await logFiles(folder, connDir)) {
    const name = known.get(ircLower(id))?.name ?? id;
    const conversation = await session.conversation(connection.id, name);
    const isPrivate = name !== "" && !CHANNEL.test(name);
    for (const path of files) {
      let file: Deno.FsFile;
      try {
        file = await Deno.open(path);
      } catch (err) {
        throw fileError(path, err);
      }
      // Streamed: a log of hundreds of megabytes is read a chunk at a time.
      try {
        for await (const line of readLines(file.readable)) {
          if (!("text" in line)) {
            session.summary.skipped++;
            continue;
          }
          const m = LINE.exec(line.text);
          if (!m) {
            if (line.text.trim()) session.summary.skipped++;
            continue;
          }
          const parsed = parseConvosMessage(m[8]);
          if (!parsed) {
            session.summary.skipped++;
            continue;
          }
          const ts = Date.UTC(+m[1], +m[2] - 1, +m[3], +m[4], +m[5], +m[6]) * 1000;
          const self = nick !== "" && ircLower(parsed.from) === ircLower(nick);
          session.message({
            conversation: conversation.id,
            userId,
            ts,
            ...parsed,
            // Flag 1 is Convos's highlight; Parley also counts every private message from others.
            highlight: !self && (isPrivate || (Number(m[7] ?? 0) & 1) === 1),
          });
        }
      } catch (err) {
        throw fileError(path, err);
      }
    }
  }
}
