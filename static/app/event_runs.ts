/**
 * Runs of joins, parts, quits and nick changes: in a busy channel they bury the conversation, so
 * consecutive ones collapse into one line ("3 joined, 2 left") that opens on click. Pure, so the
 * grouping is tested without a browser (tests/unit/static/app/event_runs_test.ts).
 */
import type { Message } from "./types.ts";

/** How these events are shown: each on its own line, runs collapsed, or not at all. */
export type JoinPartMode = "show" | "condense" | "hide";

/** What a quiet event did, or undefined for anything else. */
type QuietKind = "joined" | "left" | "renamed";

/**
 * The quiet kind of a line: a live event line (`event`, made by the client) or a stored channel
 * event from history (`type`). Kicks count as leaving, as the live `part` line shows them.
 *
 * @internal test seam
 */
export function quietKind(m: Message): QuietKind | undefined {
  const kind = m.event ?? m.type;
  if (kind === "join") return "joined";
  if (kind === "part" || kind === "quit" || kind === "kick") return "left";
  if (kind === "nick" || kind === "nick_change") return "renamed";
  return undefined;
}

/** One item of the list: a line, or a run of two or more quiet events. */
export type Item =
  | { kind: "line"; m: Message }
  | { kind: "run"; key: string; lines: Message[]; counts: Record<QuietKind, number> };

/**
 * Groups `list` for display. `breaks` says where a run must end before a line (a new day, the
 * "new messages" marker), so a run never hides one of those.
 */
export function groupRuns(
  list: Message[],
  mode: JoinPartMode,
  breaks: (prev: Message, m: Message) => boolean = () => false,
): Item[] {
  if (mode === "show") return list.map((m) => ({ kind: "line", m }));
  const out: Item[] = [];
  let run: Message[] = [];
  const close = () => {
    if (run.length === 1) out.push({ kind: "line", m: run[0] });
    else if (run.length > 1) {
      const counts: Record<QuietKind, number> = { joined: 0, left: 0, renamed: 0 };
      for (const m of run) counts[quietKind(m)!]++;
      out.push({ kind: "run", key: "r" + run[0].ts, lines: run, counts });
    }
    run = [];
  };
  for (const m of list) {
    if (!quietKind(m)) {
      close();
      out.push({ kind: "line", m });
      continue;
    }
    if (mode === "hide") continue;
    if (run.length && breaks(run[run.length - 1], m)) close();
    run.push(m);
  }
  close();
  return out;
}
