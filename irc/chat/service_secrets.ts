/**
 * Passwords the user says to services (`/msg NickServ identify hunter2`): the server is sent the
 * line as typed, but what is kept (history, search, every device's screen, backups) says
 * `identify ********`. A password kept in history outlives its use and travels with every copy of
 * it; the command itself still shows, so the user sees what was done.
 */

/**
 * What a password is shown as: always the same, so its length is not told either.
 *
 * @internal test seam
 */
export const HIDDEN = "********";

/**
 * Where the password is among a command's words after the command: each services' command that
 * carries one (Anope's and Atheme's NickServ, QuakeNet's Q, Undernet's X), or undefined when
 * these words carry none.
 */
const SECRET_AT: Readonly<Record<string, (args: string[]) => number | undefined>> = {
  // IDENTIFY [account] password
  identify: (a) => (a.length === 1 || a.length === 2 ? a.length - 1 : undefined),
  id: (a) => (a.length === 1 || a.length === 2 ? a.length - 1 : undefined),
  // LOGIN account password, AUTH account password
  login: (a) => (a.length === 2 ? 1 : undefined),
  auth: (a) => (a.length === 2 ? 1 : undefined),
  // REGISTER password [email] (a channel's REGISTER names the channel first, and no password)
  register: (a) => (a.length >= 1 && !/^[#&]/.test(a[0]) ? 0 : undefined),
  // GHOST nick [password], and the commands like it
  ghost: (a) => (a.length === 2 ? 1 : undefined),
  regain: (a) => (a.length === 2 ? 1 : undefined),
  recover: (a) => (a.length === 2 ? 1 : undefined),
  release: (a) => (a.length === 2 ? 1 : undefined),
  group: (a) => (a.length === 2 ? 1 : undefined),
  drop: (a) => (a.length === 2 ? 1 : undefined),
  // SET PASSWORD password
  set: (a) => (a.length === 2 && a[0].toLowerCase() === "password" ? 1 : undefined),
  // SETPASS account key password
  setpass: (a) => (a.length === 3 ? 2 : undefined),
};

/** `text` said to a service as it is kept: its password hidden, if it carries one. */
export function hideServicePassword(text: string): string {
  const [command = "", ...args] = text.trim().split(/\s+/);
  const at = SECRET_AT[command.toLowerCase()]?.(args);
  if (at === undefined) return text;
  args[at] = HIDDEN;
  return [command, ...args].join(" ");
}
