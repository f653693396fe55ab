/**
 * WEBIRC: a network that trusts Parley as a gateway (its connection profile holds the password the
 * network gave) is told, before registration, the address its user is connecting from, so that
 * bans, limits per address and /whois see the person, not Parley's host. The address is the one
 * the user last used Parley's web client from, as Convos does with its user's last address.
 */
import { lookup, lookupService } from "node:dns";
import { isIP } from "node:net";
import { log } from "../lib/log.ts";
import { plainAddress } from "../lib/address.ts";
import type { SessionStore } from "../store/sessions.ts";
import { WEBIRC_PASSWORD } from "../protocol/limits.ts";

/** What the WEBIRC line carries (irc/engine/registration.ts writes it). */
export interface Webirc {
  password: string;
  hostname: string;
  address: string;
}

/** The address told when the user has not used the web client (as Convos's default). */
const NO_ADDRESS = "127.0.0.1";
/** How long a reverse lookup may hold the connect up: past it, the address stands for the name. */
const LOOKUP_MS = 2_000;
/** A host name as DNS allows it: it goes into an IRC line, and a PTR answer is anyone's to set. */
const HOSTNAME =
  /^(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/;

/** `p`'s answer, or `otherwise` once `ms` have passed without one. */
async function within<T>(p: Promise<T>, ms: number, otherwise: T): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<T>((r) => timer = setTimeout(() => r(otherwise), ms));
  try {
    return await Promise.race([p, late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The name `address` resolves back to, or the address itself (none, too slow, or malformed).
 *
 * @internal test seam
 */
export async function hostnameOf(address: string): Promise<string> {
  const found = new Promise<string | undefined>((resolve) =>
    lookupService(address, 0, (err, host) => resolve(err ? undefined : host))
  );
  const name = await within(found, LOOKUP_MS, undefined);
  if (!name || !HOSTNAME.test(name) || isIP(name) !== 0) return address;
  // Whoever holds the address's reverse zone names it as they like (a network's staff host):
  // the name stands only when it resolves forward to the address again.
  return await resolvesTo(name, address, LOOKUP_MS) ? name : address;
}

/**
 * Whether `name` resolves (the system resolver, within `ms`) to `address`, among others.
 *
 * @internal test seam
 */
export function resolvesTo(name: string, address: string, ms: number): Promise<boolean> {
  const found = new Promise<boolean>((resolve) =>
    lookup(
      name,
      { all: true },
      (err, addresses) => resolve(!err && addresses.some((a) => sameAddress(a.address, address))),
    )
  );
  return within(found, ms, false);
}

/** One address written two ways (`::ffff:127.0.0.1` and `127.0.0.1`). */
function sameAddress(a: string, b: string): boolean {
  return plainAddress(a) === plainAddress(b);
}

/** An IPv6 address starting with ":" would read as a line's last parameter: "0" goes first. */
export function webircWord(word: string): string {
  return word.startsWith(":") ? "0" + word : word;
}

/**
 * The WEBIRC to send for a user's connection to a host whose profile has `password`, or undefined
 * when there is none (or one no line can carry, which an admin's save refuses).
 */
export async function webircFor(
  sessions: Pick<SessionStore, "listForUser">,
  userId: number,
  password: string,
): Promise<Webirc | undefined> {
  if (!password) return undefined;
  if (!WEBIRC_PASSWORD.test(password)) {
    log.warn("WEBIRC password not sent: not one word", { uid: userId });
    return undefined;
  }
  const [last] = await sessions.listForUser(userId, Date.now());
  const address = last && isIP(last.address) ? last.address : NO_ADDRESS;
  return { password, hostname: await hostnameOf(address), address };
}
