/**
 * DNS rebinding: a page of another site, whose name its owner then points at 127.0.0.1, reaches a
 * Parley that listens on loopback, and the victim's browser takes Parley for that site: its
 * requests carry that site's name as Host and as Origin, so they pass every same-origin check (a
 * fresh install's first registration makes its sender the admin). The Host header is what tells:
 * on a loopback listener without a reverse proxy, Parley answers only to the names it has (a
 * loopback name, its listen and base URLs' names) and to IP addresses, which no rebinding can
 * give. A listener on other interfaces is reached by names of the network's own, which Parley
 * cannot know; set PARLEY_BASE_URL there and the reverse proxy in front checks the names it serves.
 */
import type { Context, MiddlewareHandler } from "hono";
import { errorBody } from "./errors.ts";
import { type Config, LOOPBACK } from "../config.ts";
import { log } from "../lib/log.ts";

const IPV4 = /^\d{1,3}(?:\.\d{1,3}){3}$/;

/** Whether a listener on `config` answers only to names it knows (see above). */
function checksHost(config: Config): boolean {
  return LOOPBACK.test(config.listen.hostname) && !config.reverseProxy;
}

/**
 * Why a request's Host is not one of Parley's names, or undefined when it is (or when this
 * listener does not check: `checksHost`). A request without Host (HTTP/1.0 from a script) is no
 * browser's.
 *
 * @internal test seam
 */
export function foreignHost(c: Context, config: Config): string | undefined {
  if (!checksHost(config)) return undefined;
  const host = c.req.header("host");
  if (host === undefined) return undefined;
  let name: string;
  try {
    name = new URL(`http://${host}`).hostname;
  } catch {
    return "The Host header is not a host.";
  }
  // A name written with its final dot is the same name.
  name = name.replace(/\.$/, "");
  if (IPV4.test(name) || name.startsWith("[")) return undefined;
  if (name === "localhost" || name.endsWith(".localhost")) return undefined;
  if (name === config.baseUrl.hostname || name === config.listen.hostname) return undefined;
  if (!told.has(name) && told.size < 100) {
    told.add(name);
    // A proxy in front that passes its own name on, without PARLEY_REVERSE_PROXY, meets this
    // too: the operator is told how to let it in.
    log.warn("a request for another name was refused", { host: name, fix: FIX });
  }
  return `This server is not reached as ${name}: ${FIX}.`;
}

/** How an operator lets a name in. */
const FIX = "set PARLEY_BASE_URL to the URL people use, or PARLEY_REVERSE_PROXY=1 behind a proxy";
/** The names refused so far (each is logged once). */
const told = new Set<string>();

/** Refuses a request whose Host names another site (403 at `/header/host`), before anything else. */
export function refuseForeignHost(config: Config): MiddlewareHandler {
  return async (c, next) => {
    const foreign = foreignHost(c, config);
    if (foreign) return c.json(errorBody([{ message: foreign, path: "/header/host" }]), 403);
    await next();
  };
}
