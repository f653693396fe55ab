/**
 * `network create|update|delete|status`: the user's connections, through the connection service
 * (the same checks as the API: forced connection, private targets, one per host and nick, the
 * count), and the lookup of `-network` that the other groups share.
 */
import { parseIrcUrl } from "../../irc/url.ts";
import { invalid, missing } from "../../lib/errors.ts";
import type { ConnectionRecord } from "../../store/connections.ts";
import { boolFlag, parseArgs } from "./args.ts";
import { register, saved, type ServiceCall, UsageError } from "./table.ts";
import { t } from "./words.ts";

/**
 * The connection `name` names (its connection_id, or its name in any case); without a name, the
 * one the client is bound to, or the user's only one.
 */
export async function networkOf(call: ServiceCall, name?: string): Promise<ConnectionRecord> {
  const { store } = call.deps;
  const wanted = name ?? call.network;
  if (wanted) {
    const byId = await store.connections.get(call.user.id, wanted);
    if (byId) return byId;
    const all = await store.connections.list(call.user.id);
    const byName = all.filter((c) => c.name.toLowerCase() === wanted.toLowerCase());
    if (byName.length === 1) return byName[0];
    throw missing(t('No network "{name}". Type "network status" to list yours.', {
      name: wanted.slice(0, 64),
    }));
  }
  const all = await store.connections.list(call.user.id);
  if (all.length === 1) return all[0];
  throw new UsageError(t("Name the network with -network <name>."));
}

/** The parts of `-addr`: `[irc://|ircs://]host[:port]`; TLS unless the scheme says irc://. */
function parseAddr(addr: string): { tls: boolean; hostPort: string } {
  const m = /^(?:(ircs|irc|irc\+insecure):\/\/)?([^/\s?#@]+)\/?$/i.exec(addr.trim());
  if (!m) throw invalid(t("-addr takes host[:port], ircs://host[:port] or irc://host[:port]."));
  return { tls: !m[1] || m[1].toLowerCase() === "ircs", hostPort: m[2] };
}

/** The options that make or change a network's URL. */
const URL_FLAGS = ["addr", "nick", "username", "realname", "pass"] as const;

/** A URL from the flags, on top of `base` (the stored one) when changing a network. */
function urlFrom(flags: Map<string, string>, base?: string): string {
  const addr = flags.get("addr");
  let url: URL;
  if (addr) {
    const { tls, hostPort } = parseAddr(addr);
    try {
      url = new URL(`${tls ? "ircs" : "irc"}://${hostPort}`);
    } catch {
      throw invalid(t("-addr takes host[:port], ircs://host[:port] or irc://host[:port]."));
    }
    if (base) {
      // Keeps what the flags do not name (the SASL login, tls_verify...) but the password: the
      // connection service decides whether the stored one may follow to the new server (a URL
      // that carries one would be taken as typed anew).
      const old = new URL(base.trim());
      url.username = old.username;
      url.search = old.search;
    }
  } else {
    url = new URL(base!.trim());
  }
  const nick = flags.get("nick");
  if (nick) url.searchParams.set("nick", nick);
  const username = flags.get("username");
  if (username) url.searchParams.set("username", username);
  const realname = flags.get("realname");
  if (realname) url.searchParams.set("realname", realname);
  const pass = flags.get("pass");
  if (pass) url.password = encodeURIComponent(pass);
  return url.href;
}

register(
  {
    name: "network create",
    usage:
      "-addr <address> [-name <name>] [-nick <nick>] [-username <name>] [-realname <name>] [-pass <password>] [-enabled true|false]",
    description: "Adds a network (a connection)",
    async run(call, args) {
      const p = parseArgs(args, [...URL_FLAGS, "name"], ["enabled"]);
      if (p.positional.length) throw new UsageError(t("Give every value with its flag."));
      if (!p.flags.get("addr")) throw new UsageError(t("-addr is needed."));
      const enabled = boolFlag(p, "enabled");
      const made = await call.deps.connections.create(call.user, {
        url: urlFrom(p.flags),
        name: p.flags.get("name") || undefined,
        wanted_state: enabled === false ? "disconnected" : undefined,
      }, "/");
      return [t('Created network "{name}" ({id}).', { name: made.name, id: made.connection_id })];
    },
  },
  {
    name: "network update",
    usage:
      "<network> [-addr <address>] [-name <name>] [-nick <nick>] [-username <name>] [-realname <name>] [-pass <password>] [-enabled true|false]",
    description: "Changes a network",
    async run(call, args) {
      const p = parseArgs(args, [...URL_FLAGS, "name"], ["enabled"]);
      if (p.positional.length > 1) throw new UsageError(t("Give every value with its flag."));
      const record = await networkOf(call, p.positional[0]);
      const enabled = boolFlag(p, "enabled");
      const urlChange = URL_FLAGS.some((f) => p.flags.has(f));
      if (!urlChange && !p.flags.has("name") && enabled === undefined) {
        throw new UsageError(t("Say what to change."));
      }
      const name = p.flags.get("name") || undefined;
      return await saved(
        () =>
          call.deps.connections.update(call.user.id, record.connectionId, {
            url: urlChange ? urlFrom(p.flags, record.url) : undefined,
            name,
            wanted_state: enabled === undefined
              ? undefined
              : enabled
              ? "connected"
              : "disconnected",
          }, "/"),
        t('Updated network "{name}" ({id}).', {
          name: name ?? record.name,
          id: record.connectionId,
        }),
      );
    },
  },
  {
    name: "network delete",
    usage: "<network>",
    description: "Deletes a network with its conversations and history",
    async run(call, args) {
      if (args.length !== 1) throw new UsageError(t("Name the network to delete."));
      const record = await networkOf(call, args[0]);
      await call.deps.connections.remove(call.user.id, record.connectionId);
      return [t('Deleted network "{name}" ({id}).', {
        name: record.name,
        id: record.connectionId,
      })];
    },
  },
  {
    name: "network status",
    usage: "",
    description: "Lists your networks and their state",
    async run(call) {
      const list = await call.deps.connections.list(call.user.id);
      if (!list.length) return [t('You have no networks. Type "help network create".')];
      return list.map((c) => {
        const url = parseIrcUrl(c.url);
        const error = typeof c.info.reason === "string" && c.state !== "connected"
          ? ` (${c.info.reason.replace(/^"(.*)"$/, "$1")})`
          : "";
        return t("{id} ({name}): {state} as {nick} on {host}:{port}{tls}{error}", {
          id: c.connection_id,
          name: c.name,
          state: c.state,
          nick: String(c.info.nick ?? url.nick ?? ""),
          host: url.host,
          port: url.port,
          tls: url.tls ? t(", TLS") : "",
          error,
        });
      });
    },
  },
);
