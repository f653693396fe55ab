/** `irc://` and `ircs://` URLs: parsing, validation, ids, and the password-free form for responses. */
import { invalid } from "../lib/errors.ts";
import { hostId } from "./host_id.ts";
import { ircLower, isChannel } from "../lib/casefold.ts";
import { channelKey } from "../store/conversations.ts";

/** Everything an IRC connection needs from its URL. */
export interface IrcUrl {
  host: string;
  port: number;
  tls: boolean;
  tlsVerify: boolean;
  /** The URL's user part (SASL account or server user), may be empty. */
  user: string;
  /** Server or SASL password; never returned or logged. */
  password: string;
  /** Wanted nick; empty when the URL names none. */
  nick: string;
  realname: string;
  username: string;
  sasl: "" | "plain" | "external";
  /** Channel (or nick) named by the path (`/%23parley`), or empty. */
  conversation: string;
  /** The channel's key when the path gives one (`/%23parley%20s3cret`), or empty. */
  conversationKey: string;
}

const NICK = /^[A-Za-z\[\]\\`_^{|}][A-Za-z0-9\[\]\\`_^{|}-]{0,29}$/;
const TRUE = /^(1|true|yes|on)$/i;
const FALSE = /^(0|false|no|off)$/i;

function flag(params: URLSearchParams, name: string, path: string): boolean | undefined {
  const v = params.get(name);
  if (v === null) return undefined;
  if (v === "" || TRUE.test(v)) return true;
  if (FALSE.test(v)) return false;
  throw invalid(`${name} must be 0 or 1.`, path);
}

/**
 * Parses and validates a connection URL. Bad input is an `invalid` DomainError at `path`: the
 * caller says where the URL came from (`/body/url`); "/" means the text itself was the input.
 */
export function parseIrcUrl(text: string, path = "/"): IrcUrl {
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    throw invalid("The URL is not valid.", path);
  }
  const scheme = url.protocol.slice(0, -1).toLowerCase();
  if (scheme !== "irc" && scheme !== "ircs") {
    throw invalid("The URL must start with irc:// or ircs://.", path);
  }
  const host = url.hostname.toLowerCase();
  if (!host) throw invalid("The URL has no host.", path);
  if (/[\s/@]/.test(host)) throw invalid("The URL's host is not valid.", path);
  const p = url.searchParams;
  const tls = flag(p, "tls", path) ?? scheme === "ircs";
  const tlsVerify = flag(p, "tls_verify", path) ?? true;
  const port = url.port ? Number(url.port) : tls ? 6697 : 6667;
  if (!Number.isInteger(port) || port < 1 || port > 65535) {
    throw invalid("The URL's port is not valid.", path);
  }
  const nick = p.get("nick") ?? "";
  if (nick && !NICK.test(nick)) throw invalid("The nick in the URL is not valid.", path);
  // Convos's client sends `sasl=none` for "no SASL".
  let sasl = (p.get("sasl") ?? "").toLowerCase();
  if (sasl === "none") sasl = "";
  if (sasl !== "" && sasl !== "plain" && sasl !== "external") {
    throw invalid("sasl must be none, plain or external.", path);
  }
  const user = lineSafe(decoded(url.username, "user", path), "The user", path);
  const password = lineSafe(decoded(url.password, "password", path), "The password", path);
  if (sasl === "plain" && !password) {
    throw invalid("SASL PLAIN needs a password in the URL.", path);
  }
  const username = lineSafe(p.get("username") ?? "", "username", path);
  if (/[\s@]/.test(username)) throw invalid("username must not contain spaces or @.", path);
  const realname = lineSafe(p.get("realname") ?? "", "realname", path);
  const named = pathConversation(url, path);
  const conversation = lineSafe(named.name, "The channel", path);
  return {
    host,
    port,
    tls,
    tlsVerify,
    user,
    password,
    nick,
    realname,
    username,
    sasl: sasl as IrcUrl["sasl"],
    conversation,
    // One that cannot be a key is left out, not refused: URLs stored before keys were read
    // are parsed again at every connect.
    conversationKey: channelKey(named.key) ?? "",
  };
}

/** CR, LF and NUL end or break an IRC line: a value holding one would inject raw commands. */
export const LINE_BREAKING = /[\r\n\0]/;

/** Returns `value`, or throws `invalid` when it holds CR, LF or NUL. */
function lineSafe(value: string, what: string, path: string): string {
  if (LINE_BREAKING.test(value)) {
    throw invalid(`${what} in the URL must not contain CR, LF or NUL.`, path);
  }
  return value;
}

/** Percent-decodes a URL part; malformed encoding is `invalid`, not a crash. */
function decoded(part: string, what: string, path: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    throw invalid(`The ${what} in the URL has malformed percent-encoding.`, path);
  }
}

/**
 * The old IRC URL drafts' flags after the name (`/%23chan,needkey`): they describe the target,
 * they are no key.
 */
const URL_FLAGS = new Set(["needkey", "needpass", "isnick", "ischannel", "isserver"]);

/** The channel (or nick) named by the URL's path, and its key when one follows a space or comma. */
function pathConversation(url: URL, path: string): { name: string; key: string } {
  const [name = "", key = ""] = decoded(url.pathname.replace(/^\/+/, ""), "path", path)
    .split(/[\s,]+/);
  // `#a,#b` (a default connection's list of channels): the second is a channel, not a key.
  return { name, key: URL_FLAGS.has(key.toLowerCase()) || isChannel(key) ? "" : key };
}

/**
 * The URL as responses show it, rebuilt from its parts: `irc://user:@host:port/%23chan?nick=..`,
 * never the password nor a channel key. Only the first path segment's name survives. An `ircs://`
 * URL is shown as Convos's client reads one, `irc://host:port?tls=1` (the port spelt out, since
 * the two schemes' default ports differ); both are accepted as input.
 */
export function publicUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    return "";
  }
  let name = "";
  try {
    name = pathConversation(url, "/").name;
  } catch { /* why: a malformed path is no conversation; the public form leaves it out */ }
  const user = url.username ? `${url.username}:@` : "";
  let port = url.port ? `:${url.port}` : "";
  const path = name ? `/${encodeURIComponent(name)}` : "";
  let search = url.search;
  let scheme = url.protocol;
  if (scheme.toLowerCase() === "ircs:") {
    scheme = "irc:";
    const tls = url.searchParams.get("tls");
    const on = tls === null || !FALSE.test(tls);
    if (tls === null) search = search && search !== "?" ? `${search}&tls=1` : "?tls=1";
    if (!port) port = on ? ":6697" : ":6667";
  }
  return `${scheme}//${user}${url.hostname}${port}${path}${search}`;
}

/**
 * The URL with its `nick` set to `nick`, everything else as it was (password included): the nick
 * a URL names follows the one the user took with /nick, as the connection's settings show it.
 */
export function withNick(text: string, nick: string): string {
  const url = new URL(text.trim());
  // The other parameters as they were written (URLSearchParams would spell them again).
  const parts = url.search.slice(1).split("&").filter((p) => p && !/^nick(=|$)/.test(p));
  url.search = [`nick=${encodeURIComponent(nick)}`, ...parts].join("&");
  return url.toString();
}

/** What makes two connections of one user the same: host, port and nick. */
export function sameTarget(a: IrcUrl, b: IrcUrl): boolean {
  return targetKey(a) === targetKey(b);
}

/** The stored form of a connection's target (host, port, casefolded nick), kept indexed. */
export function targetKey(u: { host: string; port: number; nick: string }): string {
  return `${u.host}:${u.port} ${ircLower(u.nick)}`;
}

/** `irc-libera`, or `irc-libera-2`, `irc-libera-3`... when the user already has that id. */
export function newConnectionId(host: string, taken: Iterable<string>): string {
  const used = new Set(taken);
  const base = hostId(host);
  if (!used.has(base)) return base;
  for (let n = 2;; n++) if (!used.has(`${base}-${n}`)) return `${base}-${n}`;
}

/** A nick made from an email's local part, for URLs that name none (`Jane.Doe@x` -> `Jane_Doe`). */
export function nickFromEmail(email: string): string {
  let nick = email.split("@")[0].replace(/[^A-Za-z0-9\[\]\\`_^{|}-]/g, "_").slice(0, 30);
  if (!/^[A-Za-z\[\]\\`_^{|}]/.test(nick)) nick = `u${nick}`.slice(0, 30);
  return nick || "parley";
}
