/** How a connection is shown: its title in the sidebar and views, and what is wrong with it. */
import { connections } from "./state.ts";
import type { Connection } from "./types.ts";
import { plainReason } from "./conn_error.ts";

/** What a connection is called: its name, else its host, never its internal id alone. */
export function connectionTitle(c: Connection | undefined, cid: string): string {
  const where = (o: Connection | undefined) => HOST.exec(o?.url ?? "");
  const m = where(c);
  const name = c?.name || m?.[1] || cid;
  // Two connections to one server are told apart by the nick used on each, else by the port.
  const twins = Object.values(connections.value).filter((o) =>
    o.connection_id !== cid && (o.name || where(o)?.[1]) === name
  );
  if (!twins.length) return name;
  const nick = (x: Connection | undefined) =>
    String((x?.info as { nick?: string } | undefined)?.nick || NICK.exec(x?.url ?? "")?.[1] || "");
  const mine = decodeURIComponent(nick(c));
  if (mine && !twins.some((o) => decodeURIComponent(nick(o)) === mine)) {
    return `${name} (${mine})`;
  }
  return m?.[2] ? `${name}:${m[2]}` : `${name} (${cid})`;
}

const HOST = /^\w+:\/\/(?:[^@/]*@)?(\[[^\]]+\]|[^/:?]+)(?::(\d+))?/;
const NICK = /[?&]nick=([^&]+)/;

/** The state of a connection in plain words, with the reason it failed. */
export function connectionProblem(cid: string): string {
  const c = connections.value[cid];
  if (!c || c.state === "connected" || c.state === "connecting" || c.state === "queued") return "";
  const info = (c.info ?? {}) as { reason?: string; host?: string };
  return plainReason(info.reason, info.host ?? /^\w+:\/\/([^/:?]+)/.exec(c.url)?.[1]);
}

/** `text` (an error from the server) with the connection's internal id replaced by its title. */
export function withConnectionName(text: string, cid: string): string {
  if (!cid) return text;
  const title = connectionTitle(connections.value[cid], cid);
  return text.split(cid).join(title);
}
