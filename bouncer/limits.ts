import { listMode } from "../irc/channel_lists.ts";

/** The bounds of the listener, in one place; tests shorten the times. */
export interface BouncerLimits {
  /** A client that has not registered by then is dropped (ms). */
  registerTimeoutMs: number;
  /**
   * Lines a client may send at once, then one every `lineIntervalMs`; past it reading waits. A
   * line costs what `lineCost` says: a line for the server one, local work less.
   */
  lineBurst: number;
  lineIntervalMs: number;
  /** Attached clients per user, over all connections. */
  clientsPerUser: number;
  /** Failed SASL exchanges before the client is dropped. */
  saslAttempts: number;
  /**
   * Clients not yet registered, over all addresses. Past it a newcomer takes the place of the
   * longest-waiting client of the address that has the most waiting (one not logged in yet).
   */
  unregistered: number;
  /** Clients not yet registered from one address (an IPv6 /64); more are refused. */
  unregisteredPerAddress: number;
}

export const DEFAULT_LIMITS: BouncerLimits = {
  registerTimeoutMs: 30_000,
  lineBurst: 20,
  lineIntervalMs: 200,
  clientsPerUser: 20,
  saslAttempts: 3,
  unregistered: 200,
  unregisteredPerAddress: 10,
};

/**
 * What one line of a client costs against its pacing. Pacing keeps a client from flooding the
 * server through the user's connection; what Parley answers itself costs a twentieth (400 at once,
 * then 100 a second): CHATHISTORY, which a client on attach asks for every channel (gamja and
 * Goguma: 100 channels, 100 requests), and a channel's modes and lists (`MODE #chan`, `MODE #chan
 * b`, answered from the connection's state), which irssi and weechat ask of every channel. One
 * that goes to the server after all waits for its flood control there, behind a bound of its own.
 */
export function lineCost(line: string): number {
  const [command, rest] = commandOf(line);
  if (command === "MODE") {
    const [target, asked, more] = rest.trim().split(/\s+/);
    return target && !more && (asked === undefined || listMode(asked)) ? LOCAL : 1;
  }
  return command === "CHATHISTORY" ? LOCAL : 1;
}

const LOCAL = 0.05;

/** The command word of a raw line (after its tags and source), upper-cased, and what follows it. */
function commandOf(line: string): [string, string] {
  let i = 0;
  for (const lead of ["@", ":"]) {
    if (line[i] !== lead) continue;
    const sp = line.indexOf(" ", i);
    if (sp < 0) return ["", ""];
    i = sp + 1;
    while (line[i] === " ") i++;
  }
  const sp = line.indexOf(" ", i);
  return [line.slice(i, sp < 0 ? undefined : sp).toUpperCase(), sp < 0 ? "" : line.slice(sp + 1)];
}
