/**
 * Answers to CTCP requests (VERSION, PING, TIME, CLIENTINFO). Anyone on IRC can send them, so the
 * connection answers only a few per interval (see IrcConnection) and behind the user's own lines.
 */

/** The CTCP requests Parley answers. */
const ANSWERED = ["CLIENTINFO", "PING", "TIME", "VERSION"];
/** Longest PING argument echoed back. */
const MAX_PING_ARG = 64;

/** The NOTICE body answering a CTCP request, or undefined when Parley does not answer it. */
export function ctcpAnswer(type: string, arg: string, version: string): string | undefined {
  switch (type.toUpperCase()) {
    case "VERSION":
      return `VERSION ${version}`;
    case "PING":
      return `PING ${arg.slice(0, MAX_PING_ARG)}`;
    case "TIME":
      return `TIME ${new Date().toUTCString()}`;
    case "CLIENTINFO":
      return `CLIENTINFO ${ANSWERED.join(" ")}`;
  }
  return undefined;
}
