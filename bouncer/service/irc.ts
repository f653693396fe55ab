/**
 * BouncerServ on the listener: a PRIVMSG to it (any case) from an attached client is run by the
 * service and answered with NOTICEs from `BouncerServ!BouncerServ@<server>`; it never reaches the
 * IRC network and makes no conversation (a NOTICE to it is dropped, as notices get no answer).
 * An admin's server notice reaches every logged-in client as a NOTICE from the server.
 */
import { ircLower } from "../../lib/casefold.ts";
import { SERVER_NAME } from "../burst.ts";
import { certificateFingerprint } from "../auth.ts";
import { credentialHolds } from "../credentials.ts";
import type { BouncerContext, Session } from "../session.ts";
import { formatMessage, type IrcMessage, nickOf } from "../../irc/protocol/message.ts";
import { runService, SERVICE_NICK } from "./mod.ts";
import { t } from "./words.ts";

const PREFIX = `${SERVICE_NICK}!${SERVICE_NICK}@${SERVER_NAME}`;
const TARGET = ircLower(SERVICE_NICK);
/** The most characters of one NOTICE's text (the line stays within 512 bytes). */
const PIECE = 400;

/**
 * Whether the line is addressed to BouncerServ.
 *
 * @internal test seam
 */
export function toService(m: IrcMessage): boolean {
  return (m.command === "PRIVMSG" || m.command === "NOTICE") && !!m.params[0] &&
    ircLower(m.params[0]) === TARGET;
}

/**
 * Handles a PRIVMSG or NOTICE to BouncerServ; false when the line is not for it. Runs before
 * anything else of the line, so nothing of it goes upstream.
 */
export async function bouncerServ(s: Session, m: IrcMessage): Promise<boolean> {
  if (!toService(m)) return false;
  if (m.command !== "PRIVMSG" || !s.login) return true;
  const text = m.params[1] ?? "";
  // A labeled line is answered with its label: on its echo, else with an ACK (the answers are
  // the service's NOTICEs after it).
  const label = m.tags.get("label");
  const tags =
    label && s.caps.has("labeled-response") && new TextEncoder().encode(label).length <= 64 &&
      !/[\s;]/.test(label)
      ? new Map([["label", label]])
      : undefined;
  if (s.caps.has("echo-message")) {
    s.write(
      formatMessage({
        command: "PRIVMSG",
        params: [SERVICE_NICK, text],
        prefix: ownSource(s),
        tags,
      }),
    );
  } else if (tags) {
    s.write(formatMessage({ command: "ACK", params: [], prefix: SERVER_NAME, tags }));
  }
  // The user as stored now: roles change, and a deleted account or a revoked credential does
  // nothing here.
  const user = await s.cx.store.users.byId(s.login.user.id);
  if (!user || !(await credentialHolds(s.cx.store, user, s.login.credential))) {
    s.quit(t("The login is no longer valid"));
    return true;
  }
  s.login.user = user;
  const lines = await runService({
    deps: {
      store: s.cx.store,
      connections: s.cx.connections,
      bus: s.cx.relay.bus,
      irc: s.cx.irc,
      ...s.cx.accounts,
    },
    user,
    network: s.login.connection?.connectionId ?? s.hub?.connectionId ?? "",
    certificate: s.transport.certificate && certificateFingerprint(s.transport.certificate),
    passwordGiven: s.login.credential?.kind === "password",
  }, text);
  for (const line of lines) {
    for (const piece of pieces(line)) {
      s.write(formatMessage({ command: "NOTICE", params: [s.target, piece], prefix: PREFIX }));
    }
  }
  return true;
}

/**
 * The user's own source on the echo, as the relay gives the user's other lines: the network's
 * (its `nick!user@host`) when the server has shown it for this nick, else the bare nick. The
 * login the client sent (email, network, client) is no source and must not be shown as one.
 */
function ownSource(s: Session): string {
  const source = s.hub?.state.source;
  return source && ircLower(nickOf(source)) === ircLower(s.target) ? source : s.target;
}

/** A line cut into NOTICE-sized pieces (an empty line is one space: IRC has no empty text). */
function pieces(line: string): string[] {
  const clean = line.replace(/[\r\n\0]/g, " ") || " ";
  const out: string[] = [];
  for (let i = 0; i < clean.length; i += PIECE) out.push(clean.slice(i, i + PIECE));
  return out;
}

/** Sends each `server_notice` to the user's attached clients that this node serves. */
export function relayServerNotices(cx: BouncerContext): () => void {
  return cx.relay.bus.tap(
    (userId, ev) => {
      if (ev.event !== "server_notice") return;
      for (const s of cx.logins.get(userId) ?? []) {
        // The clients this node serves; one handed over to another node hears it from there.
        if (!s.hub && !s.control) continue;
        for (const piece of pieces(ev.message)) {
          s.write(
            formatMessage({ command: "NOTICE", params: [s.target, piece], prefix: SERVER_NAME }),
          );
        }
      }
    },
    ["server_notice"],
    (userId) => cx.logins.has(userId),
  );
}
