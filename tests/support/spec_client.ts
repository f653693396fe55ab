/**
 * Helpers for the IRCv3 specification tests of the listener (tests/integration/bouncer_spec_*):
 * waiting for everything sent before now, and collecting one labeled answer.
 */
import type { BouncerClient, Received } from "./bouncer_client.ts";

let tokens = 0;

/** Waits until everything the listener sent the client before now has arrived (PING, PONG). */
export async function sync(c: BouncerClient): Promise<void> {
  const token = `sync${++tokens}`;
  await c.send(`PING :${token}`);
  await c.waitFor((l) => l.command === "PONG" && l.params.at(-1) === token);
}

/** One labeled answer: its lines (a batch's start and end included) in the order they came. */
export interface Answer {
  lines: Received[];
  /** The batch the label opened, if it opened one. */
  batch?: Received;
}

/**
 * Sends `line` with `label`, and gathers its answer once everything before a PING sent after it
 * has arrived: the lines carrying the label, and the lines of the batch whose start carries it.
 */
export async function labeled(c: BouncerClient, label: string, line: string): Promise<Answer> {
  const from = c.lines.length;
  await c.send(`@label=${label} ${line}`);
  await c.waitFor((l) => l.tags.get("label") === label, from);
  const start = c.lines.slice(from).find((l) => l.tags.get("label") === label)!;
  let batch: Received | undefined;
  if (start.command === "BATCH" && start.params[0].startsWith("+")) {
    batch = start;
    const id = start.params[0].slice(1);
    await c.waitFor((l) => l.command === "BATCH" && l.params[0] === `-${id}`, from);
  }
  await sync(c);
  const id = batch?.params[0].slice(1);
  const lines = c.lines.slice(from).filter((l) =>
    l.tags.get("label") === label || (id !== undefined &&
      (l.tags.get("batch") === id || (l.command === "BATCH" && l.params[0] === `-${id}`)))
  );
  return { lines, batch };
}

/** The lines a client got since `from` with one of these commands. */
export const got = (c: BouncerClient, from: number, ...commands: string[]): Received[] =>
  c.lines.slice(from).filter((l) => commands.includes(l.command));

/**
 * Checks the batch spec over everything a client received: each reference tag is letters, digits
 * and hyphens; a batch's start and end carry no tag of their own batch; every line of a batch comes
 * between its start and end; every batch started is ended. Returns what is wrong.
 */
export function batchErrors(lines: Received[]): string[] {
  const errors: string[] = [];
  const open = new Set<string>();
  const ended = new Set<string>();
  for (const l of lines) {
    const ref = l.tags.get("batch");
    if (l.command === "BATCH") {
      const word = l.params[0] ?? "";
      const id = word.slice(1);
      if (!/^[A-Za-z0-9-]+$/.test(id)) errors.push(`bad reference tag: ${l.raw}`);
      if (ref === id) errors.push(`a batch line refers to its own batch: ${l.raw}`);
      if (word.startsWith("+")) {
        if (open.has(id)) errors.push(`started twice: ${l.raw}`);
        open.add(id);
      } else if (word.startsWith("-")) {
        if (!open.delete(id)) errors.push(`ended, never started: ${l.raw}`);
        ended.add(id);
      } else errors.push(`neither + nor -: ${l.raw}`);
    }
    if (ref !== undefined && !open.has(ref)) errors.push(`outside its batch: ${l.raw}`);
  }
  for (const id of open) errors.push(`never ended: ${id}`);
  return errors;
}
