/**
 * A BouncerServ command line as words (double quotes keep spaces, a backslash escapes the next
 * character), and `-flag value` options apart from the positional words.
 */
import { DomainError, invalid } from "../../lib/errors.ts";
import { t } from "./words.ts";

/** A wrong use of a command: said with what to type. */
export class UsageError extends DomainError {
  constructor(message: string) {
    super("invalid", message);
  }
}

/** Splits a line into words. */
export function words(text: string): string[] {
  const out: string[] = [];
  let cur = "";
  let quoted = false;
  let has = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === "\\" && i + 1 < text.length) {
      cur += text[++i];
      has = true;
    } else if (c === '"') {
      quoted = !quoted;
      has = true;
    } else if (!quoted && /\s/.test(c)) {
      if (has) out.push(cur);
      cur = "";
      has = false;
    } else {
      cur += c;
      has = true;
    }
  }
  if (quoted) throw invalid(t("A quote is not closed."));
  if (has) out.push(cur);
  return out;
}

/** The options and positional words of a command. */
interface Parsed {
  flags: Map<string, string>;
  positional: string[];
}

/**
 * Reads `-name value` options (each named in `known`, once) and the words between them. A flag
 * known as boolean (`bools`) takes no value unless the next word is true or false. A wrong flag
 * is a UsageError, so the answer shows the command's usage too.
 */
export function parseArgs(
  args: string[],
  known: readonly string[],
  bools: readonly string[] = [],
): Parsed {
  const flags = new Map<string, string>();
  const positional: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (!a.startsWith("-") || a.length < 2) {
      positional.push(a);
      continue;
    }
    const name = a.replace(/^--?/, "");
    if (!known.includes(name) && !bools.includes(name)) {
      throw new UsageError(t("Unknown flag -{flag}.", { flag: name.slice(0, 32) }));
    }
    if (flags.has(name)) {
      throw new UsageError(t("The flag -{flag} is given twice.", { flag: name }));
    }
    if (bools.includes(name)) {
      const next = args[i + 1]?.toLowerCase();
      if (next === "true" || next === "false") {
        flags.set(name, next);
        i++;
      } else flags.set(name, "true");
      continue;
    }
    if (i + 1 >= args.length) {
      throw new UsageError(t("The flag -{flag} needs a value.", { flag: name }));
    }
    flags.set(name, args[++i]);
  }
  return { flags, positional };
}

/** A boolean flag's value: true, false, or undefined when not given. */
export function boolFlag(p: Parsed, name: string): boolean | undefined {
  const v = p.flags.get(name);
  if (v === undefined) return undefined;
  if (v === "true") return true;
  if (v === "false") return false;
  throw new UsageError(t("The flag -{flag} takes true or false.", { flag: name }));
}
