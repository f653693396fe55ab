/**
 * Which IRC servers an ordinary user may reach: public addresses only, checked after DNS
 * resolution, so a connection cannot scan or talk to loopback, private or link-local services.
 * The socket then connects to the checked address itself, so DNS cannot answer differently later.
 */
import { type AddressClass, classifyAddress, isLocalName } from "../../embed/address.ts";
import { resolveDns } from "../../embed/safe_fetch.ts";

/** The transport refused or dropped a connection; the message is for the user. */
export class TransportRefusal extends Error {
  /** True when retrying cannot help (the same target will be refused again). */
  constructor(message: string, readonly permanent: boolean) {
    super(message);
  }
}

/** The host names an IP literal, or `localhost` (which means this machine whatever DNS says). */
export function literalClass(host: string): AddressClass | undefined {
  const h = host.replace(/^\[|\]$/g, "");
  if (isLocalName(h)) return "loopback";
  const cls = classifyAddress(h);
  return cls === "invalid" ? undefined : cls;
}

/** What a refused user can do about it (the web client translates the whole refusal). */
const ASK_ADMIN =
  "ask an admin to turn on 'Users may connect to private addresses' in the server settings.";

/** The refusal's text for a host whose address `ip` is of class `cls`. */
export function refusal(host: string, ip: string, cls: AddressClass): string {
  const where = ip === host ? host : `${host} (${ip})`;
  return `${where} is a ${cls} address: ${ASK_ADMIN}`;
}

/**
 * Resolves `host` and returns the address to connect to, or throws a TransportRefusal when any of
 * its addresses is not public (a name with one private address among public ones is refused).
 */
export async function publicAddress(
  host: string,
  resolve: (host: string) => Promise<string[]> = resolveDns,
): Promise<string> {
  const h = host.replace(/^\[|\]$/g, "");
  const literal = literalClass(h);
  let addresses: string[];
  if (literal !== undefined) addresses = [isLocalName(h) ? "127.0.0.1" : h];
  else addresses = await resolve(h).catch(() => []);
  if (!addresses.length) throw new TransportRefusal(`Could not resolve ${host}.`, false);
  for (const ip of addresses) {
    const cls = classifyAddress(ip);
    if (cls !== "public") throw new TransportRefusal(refusal(host, ip, cls), true);
  }
  return addresses[0];
}
