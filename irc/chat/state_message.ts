/** The words of a connection's state changes, as Convos shows them and stores them. */
import type { IrcConnection } from "../engine/connection.ts";
import type { SeenMessage } from "./record.ts";

/** "Connecting to host.", "Connected to host." or why it is down; undefined for other states. */
export function stateMessage(conn: IrcConnection): string | undefined {
  const host = conn.url.host;
  switch (conn.state) {
    case "connecting":
      return `Connecting to ${host}.`;
    case "connected":
      return `Connected to ${host}.`;
    case "disconnected": {
      const reason = sentence(String(conn.info.reason ?? "Disconnected."));
      const retry = Number(conn.info.retry_in_ms);
      return retry > 0 ? `${reason} Reconnecting in about ${Math.ceil(retry / 1000)}s.` : reason;
    }
    default:
      return undefined;
  }
}

/**
 * A reason as a sentence of its own: the system's error number left out ("Connection refused (os
 * error 111)" reads "Connection refused."), a full stop where none ends it.
 */
function sentence(reason: string): string {
  const words = reason.replace(/\s*\(os error \d+\)\s*$/, "").trim() || "Disconnected.";
  return /[.!?]$/.test(words) ? words : `${words}.`;
}

/** A notice in the connection's server conversation. */
export function serverNotice(conn: IrcConnection, text: string): SeenMessage {
  return { name: "", from: conn.url.host, type: "notice", text };
}
