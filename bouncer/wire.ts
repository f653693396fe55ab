/**
 * The bouncer's old names for irc/protocol/message.ts, the one reader and writer of IRC lines;
 * new code imports that module.
 */
import { formatMessage, type IrcMessage, parseMessage } from "../irc/protocol/message.ts";

export {
  MAX_BODY_BYTES,
  MAX_TAG_BYTES,
  nickOf,
  tagString,
  withTags,
} from "../irc/protocol/message.ts";

/** One line, read. */
export type Message = IrcMessage;

/** Reads one line (without CR LF). */
export const parseLine = parseMessage;

/** Writes a line: tags, source, then command and parameters by the one writer. */
export function formatLine(
  command: string,
  params: string[],
  opts: { prefix?: string; tags?: Map<string, string> } = {},
): string {
  return formatMessage({ command, params, ...opts });
}
