/** Splits a subcommand's arguments into positionals, its own options, and daemon-style config flags. */
import { ConfigError, flagsToEnv, OPTIONS } from "../config.ts";

/** A subcommand's arguments, parsed. */
export interface ParsedArgs {
  positional: string[];
  /** The command's own `--name value` options; repeatable ones keep every value. */
  options: Map<string, string[]>;
  /** Configuration flags (`--home DIR` and the other daemon flags) as environment names. */
  env: Record<string, string>;
  help: boolean;
}

/**
 * Parses `args`; `own` names the command's own options that take a value. Any other `--flag`
 * must be a configuration flag, so `parley user list --home /srv/parley` works like the daemon.
 */
export function parseArgs(args: string[], own: string[] = []): ParsedArgs {
  const out: ParsedArgs = { positional: [], options: new Map(), env: {}, help: false };
  const config: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === "--help" || arg === "-h") {
      out.help = true;
      continue;
    }
    if (!arg.startsWith("--")) {
      out.positional.push(arg);
      continue;
    }
    const [name, inline] = arg.slice(2).split(/=(.*)/s, 2);
    const value = inline ?? args[++i];
    if (own.includes(name)) {
      if (value === undefined) throw new ConfigError(`--${name} needs a value`);
      out.options.set(name, [...(out.options.get(name) ?? []), value]);
    } else if (OPTIONS.some((o) => o.flag === name)) {
      config.push(`--${name}`, value ?? "");
      if (value === undefined) throw new ConfigError(`--${name} needs a value`);
    } else {
      throw new ConfigError(`unknown flag --${name}`);
    }
  }
  out.env = flagsToEnv(config);
  return out;
}
