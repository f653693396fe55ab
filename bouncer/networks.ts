/**
 * soju.im/bouncer-networks: a client that logs in without naming a connection lists the user's
 * connections (LISTNETWORKS), binds one before registering (BIND), and adds, changes or deletes
 * them through the connection service, with the same checks as the API. With the -notify
 * capability it hears of every network's changes.
 */
import type { ConnectionService } from "../irc/connection_service.ts";
import type { EventBus } from "../lib/bus.ts";
import type { ConnectionJson } from "../protocol/resources.ts";
import { parseIrcUrl } from "../irc/url.ts";
import { DomainError } from "../lib/errors.ts";
import { log } from "../lib/log.ts";
import type { Store } from "../store/mod.ts";
import type { UserRecord } from "../store/users.ts";
import { tagString } from "../irc/protocol/message.ts";

/** A network's attributes as BOUNCER NETWORK lists them (`name=x;state=connected;...`). */
export function networkAttributes(c: ConnectionJson): string {
  const url = parseIrcUrl(c.url);
  const state = c.state === "connected"
    ? "connected"
    : c.state === "disconnected"
    ? "disconnected"
    : "connecting";
  const attrs = new Map<string, string>([
    ["name", c.name],
    ["state", state],
    ["host", url.host],
    ["port", String(url.port)],
    ["tls", url.tls ? "1" : "0"],
    ["nickname", String(c.info.nick ?? url.nick)],
  ]);
  if (url.realname) attrs.set("realname", url.realname);
  if (url.username) attrs.set("username", url.username);
  const reason = typeof c.info.reason === "string" ? c.info.reason.replace(/^"(.*)"$/, "$1") : "";
  if (reason && !NOT_ERRORS.has(reason)) attrs.set("error", reason);
  return tagString(attrs).slice(1, -1);
}

/** Reasons of a disconnect the user asked for (a stop, a restart with new settings): no error. */
const NOT_ERRORS = new Set(["Reconnecting with new settings.", "Disconnected by the user."]);

/** How long the state events of one change are gathered into one notification (ms). */
const GATHER_MS = 100;

/** What the network notifications need. */
interface NetworkWatch {
  bus: EventBus;
  store: Store;
  connections: ConnectionService;
  /** The user's clients that asked for soju.im/bouncer-networks-notify, now. */
  watchers(userId: number): { write(line: string): void }[];
}

/**
 * Tells the clients that asked (soju.im/bouncer-networks-notify) of each change of a network's
 * state, and of networks added or removed, wherever the change was made: one line per change. A
 * change comes as several state events (a restart: stopping, the server's ERROR, connecting),
 * so they are gathered for a moment, and a line the clients were just sent is not sent again.
 */
export function watchNetworks(w: NetworkWatch): () => void {
  const pending = new Map<string, { timer?: ReturnType<typeof setTimeout>; last?: string }>();
  const flush = async (userId: number, id: string, key: string) => {
    const entry = pending.get(key)!;
    entry.timer = undefined;
    const watchers = w.watchers(userId);
    if (!watchers.length) return void pending.delete(key);
    const record = await w.store.connections.get(userId, id);
    const line = record
      ? `BOUNCER NETWORK ${id} ${networkAttributes(await w.connections.json(record))}`
      : `BOUNCER NETWORK ${id} *`;
    if (!record) pending.delete(key);
    if (line === entry.last) return;
    entry.last = line;
    for (const s of w.watchers(userId)) s.write(line);
  };
  const untap = w.bus.tap(
    (userId, ev) => {
      // A state change, or new info in the same state (a nick change: `nickname=`).
      if (ev.event !== "state" || (ev.type !== "connection" && ev.type !== "info")) return;
      const id = ev.connection_id;
      const key = `${userId}\0${id}`;
      let entry = pending.get(key);
      if (!entry) pending.set(key, entry = {});
      if (entry.timer !== undefined) return;
      entry.timer = setTimeout(
        () =>
          flush(userId, id, key).catch((err) =>
            log.debug("bouncer: network state line not sent", {
              uid: userId,
              connection: id,
              error: String(err),
            })
          ),
        GATHER_MS,
      );
    },
    ["state"],
    (userId) => w.watchers(userId).length > 0,
  );
  return () => {
    untap();
    for (const e of pending.values()) clearTimeout(e.timer);
    pending.clear();
  };
}

/** Reads `a=b;c=d` (values escaped as tag values); empty values mean "unset". */
export function parseAttributes(text: string): Map<string, string> {
  const m = new Map<string, string>();
  for (const pair of text.split(";").slice(0, 32)) {
    if (!pair) continue;
    const eq = pair.indexOf("=");
    const key = eq < 0 ? pair : pair.slice(0, eq);
    const raw = eq < 0 ? "" : pair.slice(eq + 1);
    m.set(
      key,
      raw.replace(/\\(.?)/g, (_, c: string) => ({ ":": ";", s: " ", "\\": "\\" })[c] ?? c),
    );
  }
  return m;
}

const KNOWN = new Set(["name", "host", "port", "tls", "nickname", "username", "realname", "pass"]);
/** Attributes BOUNCER NETWORK shows that only the bouncer sets. */
const READ_ONLY = new Set(["state", "error"]);

/** A refusal the spec gives its own code: an attribute unknown, read-only or missing. */
class AttributeError extends DomainError {
  constructor(
    readonly code: "UNKNOWN_ATTRIBUTE" | "READ_ONLY_ATTRIBUTE" | "NEED_ATTRIBUTE",
    readonly attribute: string,
    message: string,
  ) {
    super("invalid", message, `/${attribute}`);
  }
}

/** Refuses an attribute a client may not send (unknown, or only the bouncer's to set). */
function checkNames(attrs: Map<string, string>): void {
  for (const name of attrs.keys()) {
    if (READ_ONLY.has(name)) {
      throw new AttributeError("READ_ONLY_ATTRIBUTE", name, "Read-only attribute.");
    }
    if (!KNOWN.has(name)) throw new AttributeError("UNKNOWN_ATTRIBUTE", name, "Unknown attribute.");
  }
}

/** The URL parameters the attributes name; a change keeps the stored URL's others. */
const NAMED_PARAMS = new Set(["tls", "nick", "realname", "username"]);

/**
 * The URL the attributes describe, on top of `base` (a network's current URL) when changing:
 * what they do not name stays (the login, the SASL mechanism, tls_verify), except the password.
 * Whether the stored one follows is the connection service's rule, the same as for the API.
 */
function urlOf(attrs: Map<string, string>, base?: string): string {
  const old = base ? parseIrcUrl(base) : undefined;
  const tls = attrs.has("tls") ? attrs.get("tls") !== "0" : old?.tls ?? true;
  const port = attrs.get("port") ?? String(old?.port ?? (tls ? 6697 : 6667));
  if (!/^\d{1,5}$/.test(port) || Number(port) < 1 || Number(port) > 65535) {
    throw new DomainError("invalid", "Not a port.", "/port");
  }
  const host = attrs.get("host") ?? old?.host;
  if (!host) throw new AttributeError("NEED_ATTRIBUTE", "host", "A network needs a host.");
  const url = new URL(`${tls ? "ircs" : "irc"}://x`);
  // URL's setters ignore a value they cannot take: the placeholder staying means a bad host.
  url.hostname = host;
  if (url.hostname === "x" && host.toLowerCase() !== "x") {
    throw new DomainError("invalid", "Not a host name or address.", "/host");
  }
  url.port = port;
  if (base) {
    const kept = new URL(base.trim());
    url.username = kept.username;
    for (const [key, value] of kept.searchParams) {
      if (!NAMED_PARAMS.has(key)) url.searchParams.set(key, value);
    }
  }
  const nick = attrs.get("nickname") ?? old?.nick;
  if (nick) url.searchParams.set("nick", nick);
  const realname = attrs.get("realname") ?? old?.realname;
  if (realname) url.searchParams.set("realname", realname);
  const username = attrs.get("username") ?? old?.username;
  if (username) url.searchParams.set("username", username);
  const pass = attrs.get("pass");
  if (pass) url.password = encodeURIComponent(pass);
  return url.href;
}

/**
 * Which of the URL's parts the connection service refused, by how its message begins (it points
 * at the whole `url`; a message that begins with the host names no part): the attribute that
 * part is made of. Its other refusals (a host it cannot take, a private or unforced address, a
 * connection that exists) are of the server's address: host, port and nick.
 */
const URL_PARTS: [RegExp, string[]][] = [
  [/^The nick\b/, ["nickname"]],
  [/^username\b/, ["username"]],
  [/^realname\b/, ["realname"]],
  [/^(The password|Enter the password|SASL PLAIN)\b/, ["pass"]],
  [/^The URL's port\b/, ["port"]],
  [/^tls\b/, ["tls"]],
];
const SERVER_PARTS = ["host", "port", "nickname"];

/**
 * The bouncer-networks attribute a refusal names: the attribute itself for the listener's own
 * checks, and for the connection service's (at `url`, or the whole input) the attribute the client
 * sent that makes the refused part, `*` when it sent none of them.
 */
function attributeOf(err: DomainError, sent: ReadonlySet<string>): string {
  const last = err.path.split("/").pop() ?? "";
  if (last && last !== "url") return last;
  if (last !== "url") return "*";
  const parts = URL_PARTS.find(([re]) => re.test(err.message))?.[1] ?? SERVER_PARTS;
  return parts.find((a) => sent.has(a)) ?? parts[0];
}

/** The FAIL line of a refused change (soju.im/bouncer-networks' error replies). */
function fail(sub: string, err: unknown, netid: string, sent: ReadonlySet<string>): string {
  if (err instanceof DomainError) {
    const text = err.message.replace(/[\r\n]/g, " ");
    if (err.kind === "not_found") return `FAIL BOUNCER INVALID_NETID ${sub} ${netid} :${text}`;
    if (err instanceof AttributeError) {
      // The spec's NEED_ATTRIBUTE alone has no netid (ADDNETWORK only).
      const at = err.code === "NEED_ATTRIBUTE" ? "" : `${netid} `;
      return `FAIL BOUNCER ${err.code} ${sub} ${at}${err.attribute} :${text}`;
    }
    return `FAIL BOUNCER INVALID_ATTRIBUTE ${sub} ${netid} ${attributeOf(err, sent)} :${text}`;
  }
  return `FAIL BOUNCER UNKNOWN_ERROR ${sub} ${netid} :The change could not be made`;
}

/** Runs BOUNCER ADDNETWORK / CHANGENETWORK / DELNETWORK; returns the lines to answer. */
export async function changeNetwork(
  { connections, store }: { connections: ConnectionService; store: Store },
  user: UserRecord,
  sub: "ADDNETWORK" | "CHANGENETWORK" | "DELNETWORK",
  params: string[],
): Promise<string[]> {
  // ADDNETWORK has no netid yet: its errors say `*` there.
  const netid = sub === "ADDNETWORK" ? "*" : params[0] || "*";
  let sent = new Set<string>();
  try {
    if (sub === "ADDNETWORK") {
      const attrs = parseAttributes(params[0] ?? "");
      sent = new Set(attrs.keys());
      checkNames(attrs);
      const made = await connections.create(user, {
        url: urlOf(attrs),
        name: attrs.get("name") || undefined,
      }, "/");
      return [`BOUNCER ADDNETWORK ${made.connection_id}`];
    }
    if (sub === "DELNETWORK") {
      await connections.remove(user.id, netid);
      return [`BOUNCER DELNETWORK ${netid}`];
    }
    // The stored URL: what the attributes leave alone stays as it is.
    const current = await store.connections.get(user.id, netid);
    if (!current) throw new DomainError("not_found", "No such network.", "/");
    const attrs = parseAttributes(params[1] ?? "");
    sent = new Set(attrs.keys());
    checkNames(attrs);
    const urlChange = [...attrs.keys()].some((k) => k !== "name");
    await connections.update(user.id, netid, {
      name: attrs.get("name") || undefined,
      url: urlChange ? urlOf(attrs, current.url) : undefined,
    }, "/");
    return [`BOUNCER CHANGENETWORK ${netid}`];
  } catch (err) {
    return [fail(sub, err, netid, sent)];
  }
}
