/**
 * What an attached client may send, one entry per command: whether it is allowed before
 * registration, its fewest parameters, and what it does. Chat lines go through the connection's
 * own send (flood control, storing, the web client sees them); every other command goes upstream
 * as a line rebuilt by the one writer (`PASS_THROUGH`: what Parley does not handle itself is the
 * server's), after its wait for the answer is queued (pending_replies.ts).
 */
import { DomainError } from "../lib/errors.ts";
import { ircLower } from "../lib/casefold.ts";
import { authenticate, authenticateCertificate } from "./auth.ts";
import { changeNetwork, networkAttributes } from "./networks.ts";
import { credentialHolds } from "./credentials.ts";
import { search } from "./search.ts";
import { bouncerServ } from "./service/irc.ts";
import { changeDetach } from "./detached.ts";
import { MONITOR_CAP, MonitorLists, targetLines } from "./monitor.ts";
import { webpushCommand } from "./webpush.ts";
import { refusalText, type Session } from "./session.ts";
import { numericLine, SERVER_NAME } from "./burst.ts";
import { actionText, isCtcp } from "../irc/protocol/ctcp.ts";
import { CHANNEL_LISTS, listMode } from "../irc/channel_lists.ts";
import type { Hub } from "./relay.ts";
import { isService } from "../irc/chat/record.ts";
import { formatMessage, type IrcMessage, tagString } from "../irc/protocol/message.ts";
import {
  ERR_ALREADYREGISTERED,
  ERR_CANNOTSENDTOCHAN,
  ERR_ERRONEUSNICKNAME,
  ERR_INVALIDCAPCMD,
  ERR_MONLISTFULL,
  ERR_NOSUCHCHANNEL,
  ERR_NOTEXTTOSEND,
  ERR_NOTREGISTERED,
  ERR_SASLABORTED,
  ERR_SASLALREADY,
  ERR_SASLFAIL,
  ERR_TOOMANYTARGETS,
  ERR_UNKNOWNCOMMAND,
  ERR_UNKNOWNERROR,
  RPL_CHANNELMODEIS,
  RPL_CREATIONTIME,
  RPL_ENDOFMONLIST,
  RPL_LOGGEDIN,
  RPL_MONLIST,
  RPL_MONOFFLINE,
  RPL_MONONLINE,
  RPL_NOWAWAY,
  RPL_SASLMECHS,
  RPL_SASLSUCCESS,
  RPL_UNAWAY,
} from "../irc/protocol/numerics.ts";

/** One command a client may send. */
interface Command {
  /** Allowed before registration. */
  early?: boolean;
  /** Fewest parameters (else 461). */
  min?: number;
  run(s: Session, m: IrcMessage): Promise<void> | void;
}

/** A command's label (labeled-response): at most 64 bytes, one word. */
export function labelOf(m: IrcMessage): string | undefined {
  const l = m.tags.get("label");
  return l && new TextEncoder().encode(l).length <= 64 && !/[\s;]/.test(l) ? l : undefined;
}

/**
 * AWAY. With draft/pre-away, `AWAY *` says this client is not there (a phone app put in the
 * background): it stays in Parley, where automatic away stops counting the client, and the
 * server never shows `*` as the user's away message; a bare AWAY after it counts the client
 * again. Before registration only a client with the capability may send it, kept for the attach.
 * Every other AWAY is the user's own, for the server.
 */
function away(s: Session, m: IrcMessage): Promise<void> | void {
  const pre = s.caps.has("draft/pre-away");
  if (!s.registered) {
    if (!pre) return s.numeric(ERR_NOTREGISTERED, "You have not registered");
    s.earlyAway = m.params.slice(0, 1);
    return;
  }
  const text = m.params[0] ?? "";
  if (pre && text === "*") {
    s.setAbsent(true);
    return s.numeric(RPL_NOWAWAY, "You have been marked as being away");
  }
  if (pre && text === "" && s.absent) {
    s.setAbsent(false);
    return s.numeric(RPL_UNAWAY, "You are no longer marked as being away");
  }
  s.setAbsent(false);
  return upstream(s, m);
}

/** A client's chat line: sent as the user typed it in the web client would be. */
async function say(s: Session, m: IrcMessage, kind: "PRIVMSG" | "NOTICE"): Promise<void> {
  // The control service's, before anything else: it never reaches the network.
  if (await bouncerServ(s, m)) return;
  if (!s.hub) return unbound(s, m);
  const [target, text] = m.params;
  if (!text) return s.numeric(ERR_NOTEXTTOSEND, "No text to send");
  if (target.includes(",")) return s.numeric(ERR_TOOMANYTARGETS, target, "One target at a time");
  const action = actionText(text);
  // Another CTCP, or a client's answer to one (a NOTICE): passed on as it is, not stored. A
  // request's answer is then this client's.
  if (isCtcp(text) && (kind === "NOTICE" || action === undefined)) {
    if (kind === "PRIVMSG") s.hub.askedCtcp(s, target, text);
    return upstream(s, m);
  }
  const body = action ?? text;
  const hub = s.hub!;
  // To a service (`/msg NickServ identify ...`): sent as the web client's /msg is, which keeps
  // it in the service's conversation when one is open, else in the server conversation, and
  // opens none for it.
  const toService = kind === "PRIVMSG" && action === undefined && !!hub.conn &&
    isService(hub.conn, target);
  const message = kind === "NOTICE"
    ? `/notice ${target} ${body}`
    : toService
    ? `/msg ${target} ${body}`
    : action
    ? `/me ${body}`
    : body.startsWith("/")
    ? `/${body}`
    : body;
  const l = s.ownLabel();
  // The client's own tags go with the line to a server that carries them, and to the others.
  const tags = hub.state.caps.has("message-tags") ? clientTags(m) : new Map<string, string>();
  // Its copy comes back to this client by a handle, never by its text: Parley's label on the line
  // (a server echoing with labels), the server's order of echoes, or the origin token its stored
  // copy carries (a server that does not echo).
  const echo = hub.awaitEcho({ client: s, conversation: target, label: l, tags });
  const sent = new Map(tags);
  if (echo.upstreamLabel) sent.set("label", echo.upstreamLabel);
  // Its refusal (401, 404) names the target: this client's alone (told by Parley's label when
  // the line carries one).
  const wait = echo.upstreamLabel ? "unanswered" : hub.expect(s, kind, [target]);
  const write = hub.writeOf(wait);
  return await s.sendOn(async () => {
    try {
      const up = await upstreamTags(hub, sent);
      await s.cx.irc.send(hub.userId, hub.connectionId, toService ? "" : target, message, {
        tags: up.size ? Object.fromEntries(up) : undefined,
        origin: echo.id,
        relayed: true,
        written: write.written,
      });
      write.sent();
      // Every part of it is stored by now, or written: an echo told by Parley's label is still
      // to come; one told by the server's order has its place among the lines written.
      if (!hub.serverEchoes || !echo.upstreamLabel) hub.forgetEcho(echo);
    } catch (err) {
      hub.forgetEcho(echo);
      if (typeof wait === "object") hub.forgetExpected(wait);
      if (err instanceof DomainError && err.kind === "not_found" && hub.isChannel(target)) {
        // A channel Parley has no conversation for (one without +n takes messages from
        // outside): the line goes to the server as the client wrote it, and it decides.
        return ownLine(s, m, target);
      }
      const why = err instanceof DomainError ? err.message : "Not sent";
      s.numeric(ERR_CANNOTSENDTOCHAN, target, why);
      return;
    }
    if (l && !s.caps.has("echo-message")) s.reply("ACK", [], l);
  });
}

/**
 * Sends the client's line upstream, rebuilt by the writer (so it is one line, and bounded as the
 * client's lines are), to the client's own connection behind its flood control. Its answer goes
 * to this client: a query's with its label; else the label is acknowledged at once.
 */
async function upstream(s: Session, m: IrcMessage): Promise<void> {
  if (!s.hub) return unbound(s, m);
  let line: string;
  try {
    line = formatMessage({ command: m.command, params: m.params });
  } catch {
    return s.numeric(ERR_UNKNOWNERROR, m.command, "Not a line Parley can send");
  }
  const hub = s.hub!;
  const l = s.ownLabel();
  const action = expectJoinOrPart(s, m, l);
  // A JOIN or PART is answered by the server's line, everyone's news, or by a refusal (above).
  const wait = m.command === "JOIN" || m.command === "PART"
    ? "unanswered"
    : hub.expect(s, m.command, m.params, l);
  if (wait === "full") {
    return s.numeric(ERR_UNKNOWNERROR, m.command, "Too many queries waiting for an answer");
  }
  const tag = typeof wait === "object" && wait.upstreamLabel ? `@label=${wait.upstreamLabel} ` : "";
  // A query waits behind what anyone says (a client's sync of every channel asks two of each).
  const background = typeof wait === "object" && wait.spec.answered;
  // Told as it is written: a fence behind it (HELP) goes with nothing between.
  const write = hub.writeOf(wait);
  return await s.sendOn(async () => {
    try {
      await s.cx.irc.send(hub.userId, hub.connectionId, "", `/quote ${tag}${line}`, {
        background,
        relayed: true,
        written: write.written,
      });
      write.sent();
    } catch (err) {
      if (wait !== "unanswered") hub.forgetExpected(wait);
      hub.forgetJoinOrPart(s, m.command, l);
      const why = err instanceof DomainError ? err.message : "Not sent";
      s.numeric(ERR_UNKNOWNERROR, m.command, why);
      return;
    }
    if (l && (wait === "unanswered" || !wait.spec.answered) && !action) s.reply("ACK", [], l);
  }, background ? "queries" : "lines");
}

/**
 * `MODE #chan` asks a joined channel's modes, and `MODE #chan b` its bans, as a client's sync does
 * of every channel: answered from what the server last said of them (Parley asks the modes after
 * each join; a list is learned when anyone asks for it; every change is followed), since each sent
 * to the server would wait for its flood control, minutes for 100 channels. Sent there when they
 * are not known, or while this client's own lines (a mode change among them) still wait to go
 * there. Anything else about modes is the server's.
 */
function mode(s: Session, m: IrcMessage): Promise<void> {
  const [target, asked] = m.params;
  const ch = m.params.length <= 2 && s.hub?.isChannel(target)
    ? s.hub.state.channel(target)
    : undefined;
  if (!ch || s.linesWaiting) return upstream(s, m);
  const said = (command: string, params: readonly string[]) =>
    numericLine(s.target, command, ch.name, ...params);
  if (asked !== undefined) {
    const list = listMode(asked);
    const entries = list && ch.lists?.[list];
    if (!entries) return upstream(s, m);
    const { entry, end, endText } = CHANNEL_LISTS[list];
    s.writeHistory([...entries.map((e) => said(entry, e)), said(end, [endText])]);
    return Promise.resolve();
  }
  if (!ch.modes) return upstream(s, m);
  const lines = [said(RPL_CHANNELMODEIS, ch.modes.split(" "))];
  if (ch.created) lines.push(said(RPL_CREATIONTIME, [ch.created]));
  s.writeHistory(lines);
  return Promise.resolve();
}

/**
 * MONITOR: each client watches nicks of its own (monitor.ts), the server the union of them, when
 * the server says MONITOR; for any other server, and any other subcommand, the server's.
 */
function monitor(s: Session, m: IrcMessage): Promise<void> | void {
  const hub = s.hub;
  const sub = m.params[0].toUpperCase();
  if (!hub?.state.isupportHas("MONITOR") || !["+", "-", "C", "L", "S"].includes(sub)) {
    return upstream(s, m);
  }
  const said = (code: string, ...params: string[]) => numericLine(s.target, code, ...params);
  const each = (code: string, targets: string[]) => targetLines(targets).map((t) => said(code, t));
  const targets = MonitorLists.targets(m.params[1]);
  switch (sub) {
    case "+": {
      const limit = Number(hub.state.isupportValue("MONITOR")) || 0;
      const r = hub.monitor.add(s, targets, limit);
      hub.watch("+", r.ask);
      // What the server said already of nicks another client watches; the rest when it tells.
      const lines = [...each(RPL_MONONLINE, r.online), ...each(RPL_MONOFFLINE, r.offline)];
      if (r.full.length) {
        const bound = String(limit || MONITOR_CAP);
        lines.push(said(ERR_MONLISTFULL, bound, r.full.join(","), "Monitor list is full"));
      }
      return s.writeHistory(lines);
    }
    case "-":
      hub.watch("-", hub.monitor.remove(s, targets));
      return s.writeHistory([]);
    case "C":
      hub.watch("-", hub.monitor.clear(s));
      return s.writeHistory([]);
    case "L":
      return s.writeHistory([
        ...each(RPL_MONLIST, hub.monitor.list(s)),
        said(RPL_ENDOFMONLIST, "End of MONITOR list"),
      ]);
    default: {
      const { online, offline } = hub.monitor.statuses(s);
      return s.writeHistory([...each(RPL_MONONLINE, online), ...each(RPL_MONOFFLINE, offline)]);
    }
  }
}

/** The tags a client may send the server: client-only ones (`+name`), bounded. */
function clientTags(m: IrcMessage): Map<string, string> {
  const out = new Map<string, string>();
  for (const [k, v] of m.tags) if (k.startsWith("+")) out.set(k, v);
  return tagString(out).length - 2 <= MAX_CLIENT_TAGS ? out : new Map();
}

/** The most bytes of client-only tags (message-tags: 4094 without `@` and the space). */
const MAX_CLIENT_TAGS = 4094;

/**
 * A client's tags as the server is sent them: the client names a line by the id it was told, the
 * server knows it by its own.
 */
async function upstreamTags(hub: Hub, tags: Map<string, string>): Promise<Map<string, string>> {
  const replyTo = tags.get("+draft/reply");
  if (!replyTo) return tags;
  return new Map(tags).set("+draft/reply", await hub.serverMsgid(replyTo));
}

/**
 * A line Parley does not store (TAGMSG, a message to a channel not joined): sent upstream with
 * the client's own tags, and shown to the other attached clients (hub.ownLine).
 */
async function ownLine(s: Session, m: IrcMessage, target: string): Promise<void> {
  const hub = s.hub!;
  const l = s.ownLabel();
  const tags = hub.state.caps.has("message-tags") ? clientTags(m) : new Map<string, string>();
  if (m.command === "TAGMSG" && !tags.size) {
    // Nothing the server can carry (it has no message-tags): there is nothing to send.
    if (l) s.reply("ACK", [], l);
    return;
  }
  const params = [target, ...m.params.slice(1)];
  try {
    formatMessage({ command: m.command, params, tags });
  } catch {
    return s.numeric(ERR_UNKNOWNERROR, m.command, "Not a line Parley can send");
  }
  // With echo-message, a PRIVMSG or NOTICE comes back as a chat line Parley stores: sent as the
  // client wrote it (without Parley's label), its echo is told by the server's order.
  const echo = m.command !== "TAGMSG" && hub.state.caps.has("echo-message")
    ? hub.awaitEcho({ client: s, conversation: target, label: l }, true)
    : undefined;
  // Its refusal (401 of a channel that is not there, 404) names the target: this client's alone.
  const wait = hub.expect(s, m.command, [target]);
  const write = hub.writeOf(wait);
  return await s.sendOn(async () => {
    try {
      const up = await upstreamTags(hub, tags);
      const line = formatMessage({ command: m.command, params, tags: up });
      await s.cx.irc.send(hub.userId, hub.connectionId, "", `/quote ${line}`, {
        origin: echo?.id,
        relayed: true,
        written: write.written,
      });
      write.sent();
    } catch (err) {
      if (echo) hub.forgetEcho(echo);
      if (typeof wait === "object") hub.forgetExpected(wait);
      const why = err instanceof DomainError ? err.message : "Not sent";
      s.numeric(ERR_CANNOTSENDTOCHAN, target, why);
      return;
    }
    // Written: its place among the lines written holds it (hub.wrote).
    if (echo) return hub.forgetEcho(echo);
    hub.ownLine(s, { tags, prefix: "", command: m.command, params }, l);
  });
}

/** TAGMSG (message-tags): typing notifications, reactions. */
function tagmsg(s: Session, m: IrcMessage): Promise<void> | void {
  if (!s.hub) return unbound(s, m);
  const target = m.params[0];
  if (target.includes(",")) return s.numeric(ERR_TOOMANYTARGETS, target, "One target at a time");
  return ownLine(s, m, target);
}

/**
 * A client's JOIN or PART is answered by the server's JOIN or PART, everyone's news, or by a
 * refusal naming the channel, which is this client's alone: with its label when it named one
 * channel. A JOIN of a channel already joined gets no answer from the server (a labeled one is
 * ACKed then). True when the label waits for the server's answer.
 */
function expectJoinOrPart(s: Session, m: IrcMessage, label: string | undefined): boolean {
  const hub = s.hub!;
  const command = m.command;
  if (command !== "JOIN" && command !== "PART") return false;
  const named = (m.params[0] ?? "").split(",");
  const one = named.length === 1 ? label : undefined;
  let waits = false;
  for (const channel of named) {
    if (!hub.isChannel(channel) || (command === "JOIN" && hub.state.channel(channel))) continue;
    const a = { client: s, command, channel: ircLower(channel), label: one } as const;
    if (hub.expectJoinOrPart(a) && one) waits = true;
  }
  return waits;
}

/** A client bound to no network (it manages networks) cannot talk on one. */
function unbound(s: Session, m: IrcMessage): void {
  s.numeric(ERR_UNKNOWNERROR, m.command, "Bind a network first (BOUNCER BIND, or EMAIL/NETWORK)");
}

/** BOUNCER: soju.im/bouncer-networks. */
async function bouncer(s: Session, m: IrcMessage): Promise<void> {
  // Each answer goes through writeHistory: it carries the command's label.
  const answer = (...lines: string[]) => s.writeHistory(lines);
  const sub = m.params[0].toUpperCase();
  if (!s.caps.has("soju.im/bouncer-networks")) {
    return answer(`FAIL BOUNCER UNKNOWN_COMMAND ${safe(sub)} :Ask for soju.im/bouncer-networks`);
  }
  if (sub === "BIND") {
    if (s.registered) {
      return answer("FAIL BOUNCER REGISTRATION_IS_COMPLETED BIND :Bind before registering");
    }
    if (!m.params[1]) return answer("FAIL BOUNCER INVALID_NETID BIND * :Name a network");
    s.bind = m.params[1].slice(0, 100);
    return;
  }
  if (!s.login || !s.registered) return s.numeric(ERR_NOTREGISTERED, "You have not registered");
  // The user as stored now, not as at login: roles change (the connection count's limit follows
  // them), and a deleted account or a changed credential manages nothing.
  const user = await s.cx.store.users.byId(s.login.user.id);
  if (!user) return s.quit("The account was deleted");
  if (!(await credentialHolds(s.cx.store, user, s.login.credential))) {
    return s.quit("The login is no longer valid");
  }
  s.login.user = user;
  if (sub === "LISTNETWORKS") {
    const list = await s.cx.connections.list(user.id);
    const batch = `nets${Math.floor(Math.random() * 1e9)}`;
    return answer(
      `BATCH +${batch} soju.im/bouncer-networks`,
      ...list.map((c) =>
        `@batch=${batch} BOUNCER NETWORK ${c.connection_id} ${networkAttributes(c)}`
      ),
      `BATCH -${batch}`,
    );
  }
  if (sub === "ADDNETWORK" || sub === "CHANGENETWORK" || sub === "DELNETWORK") {
    // The spec's answers to what is missing: no netid is an invalid one (`*`), and an
    // ADDNETWORK without attributes lacks `host` (changeNetwork names it).
    if (!m.params[1] && sub !== "ADDNETWORK") {
      return answer(`FAIL BOUNCER INVALID_NETID ${sub} * :Name a network`);
    }
    const lines = await changeNetwork(s.cx, user, sub, m.params.slice(1));
    answer(...lines);
    if (sub === "DELNETWORK" && lines[0]?.startsWith("BOUNCER ")) {
      // Gone: its state events may still find the row, so the removal is said here.
      for (const w of s.cx.networkWatchers) {
        if (w.userId === user.id) w.write(`BOUNCER NETWORK ${m.params[1]} *`);
      }
    }
    return;
  }
  answer(`FAIL BOUNCER UNKNOWN_COMMAND ${safe(sub)} :Unknown subcommand`);
}

/** A client's word in a reply: one word, bounded. */
const safe = (w: string) => w.replace(/[\s:]/g, "").slice(0, 32) || "*";

/**
 * Runs one of Parley's own commands for the client (it knows more than the raw line would).
 * With `answered`, the server's refusal of it goes to this client only (pending_replies.ts).
 */
async function command(s: Session, m: IrcMessage, text: string, answered = false): Promise<void> {
  if (!s.hub) return unbound(s, m);
  if (/[\r\n\0]/.test(text)) {
    return s.numeric(ERR_UNKNOWNERROR, m.command, "Not a line Parley can send");
  }
  const hub = s.hub;
  const l = s.ownLabel();
  const wait = answered ? hub.expect(s, m.command, m.params) : "unanswered";
  const write = hub.writeOf(wait);
  return await s.sendOn(async () => {
    try {
      await s.cx.irc.send(hub.userId, hub.connectionId, "", text, {
        relayed: true,
        written: write.written,
      });
      write.sent();
    } catch (err) {
      if (typeof wait === "object") hub.forgetExpected(wait);
      s.numeric(
        ERR_ERRONEUSNICKNAME,
        m.params[0]?.slice(0, 32) || "*",
        err instanceof DomainError ? err.message : "Not sent",
      );
      return;
    }
    if (l) s.reply("ACK", [], l);
  });
}

const passOn: Command = { min: 1, run: (s, m) => upstream(s, m) };

/**
 * `PART #chan :detach` detaches the channel (it stays joined on the network: nothing goes
 * upstream) and a JOIN of a detached channel reattaches it (detached.ts); the rest go upstream.
 */
const joinOrPart: Command = {
  min: 1,
  async run(s, m) {
    const hub = s.hub;
    const channel = m.params[0];
    const detach = m.command === "PART" && /^detach$/i.test(m.params[1] ?? "") &&
      !!hub?.state.channel(channel);
    if (!hub || channel.includes(",") || !(detach || hub.detached.isDetached(channel))) {
      return upstream(s, m);
    }
    const l = s.ownLabel();
    try {
      await changeDetach(s.cx.store, hub.userId, hub.connectionId, channel, {
        detached: detach,
      }, s.cx.relay.bus);
    } catch (err) {
      return s.numeric(
        ERR_NOSUCHCHANNEL,
        channel,
        err instanceof DomainError ? err.message : "No such channel",
      );
    }
    // Reattached to a channel Parley was put out of meanwhile (a kick): joined again upstream.
    if (!detach && !hub.state.channel(channel)) return upstream(s, m);
    if (l) s.reply("ACK", [], l);
  },
};

/**
 * SETNAME (setname): a client is offered the capability whatever the server, so it may ask; a
 * server without it would answer 421, which a client that negotiated setname does not expect.
 * The specification's refusal says it instead.
 */
function setname(s: Session, m: IrcMessage): Promise<void> | void {
  if (!s.hub || s.hub.state.caps.has("setname")) return upstream(s, m);
  s.reply(
    "FAIL",
    ["SETNAME", "CANNOT_CHANGE_REALNAME", "This network cannot change the real name"],
    s.ownLabel(),
  );
}

/**
 * What Parley does not handle itself (MONITOR, ISON, MOTD, VERSION, KNOCK, a command it
 * has never heard of...) goes to the server as the client wrote it: a bouncer is transparent.
 */
export const PASS_THROUGH: Command = { run: (s, m) => upstream(s, m) };

async function authenticateCmd(s: Session, m: IrcMessage): Promise<void> {
  if (s.registered || s.login) return s.numeric(ERR_SASLALREADY, "You have already authenticated");
  if (!s.caps.has("sasl")) return s.numeric(ERR_SASLFAIL, "SASL authentication failed");
  const step = s.sasl.step(m.params[0]);
  switch (step.kind) {
    case "continue":
      return s.write("AUTHENTICATE +");
    case "more":
      return;
    case "mechanisms":
      s.numeric(RPL_SASLMECHS, s.sasl.mechanisms, "are available SASL mechanisms");
      return saslFailed(s, "SASL authentication failed");
    case "aborted":
      return s.numeric(ERR_SASLABORTED, "SASL authentication aborted");
    case "failed":
      return saslFailed(s, "SASL authentication failed");
    case "credentials":
    case "external": {
      const r = step.kind === "external"
        ? await authenticateCertificate(
          s.cx,
          s.transport.certificate,
          step.identity || s.username,
          s.transport.address,
        )
        : await authenticate(s.cx, step.identity, step.password, s.transport.address);
      if (typeof r === "string") {
        // Wrong credentials end the connection, as a web login failure counts (same throttle).
        s.numeric(ERR_SASLFAIL, refusalText(r));
        return s.quit(refusalText(r));
      }
      s.login = r;
      s.numeric(
        RPL_LOGGEDIN,
        `${s.nick || "*"}!${s.username || "*"}@parley`,
        r.user.email,
        `You are now logged in as ${r.user.email}`,
      );
      s.numeric(RPL_SASLSUCCESS, "SASL authentication successful");
      return s.tryRegister();
    }
  }
}

function saslFailed(s: Session, text: string): void {
  s.numeric(ERR_SASLFAIL, text);
  if (++s.saslFailures >= s.cx.limits.saslAttempts) s.quit("Too many SASL attempts");
}

function cap(s: Session, m: IrcMessage): Promise<void> | void {
  const sub = (m.params[0] ?? "").toUpperCase();
  const who = s.registered ? s.target : s.nick || "*";
  const reply = (...p: string[]) => s.reply("CAP", [who, ...p]);
  switch (sub) {
    case "LS": {
      if (!s.registered) s.caps.negotiating = true;
      const lines = s.caps.ls(Number(m.params[1] ?? 0) || 0);
      lines.forEach((words, i) =>
        i < lines.length - 1 && s.caps.version >= 302
          ? reply("LS", "*", words.join(" "))
          : reply("LS", words.join(" "))
      );
      return;
    }
    case "LIST":
      return reply("LIST", s.caps.list().join(" "));
    case "REQ": {
      if (!s.registered) s.caps.negotiating = true;
      const text = m.params[1] ?? "";
      const ok = s.caps.request(text);
      return reply(ok ? "ACK" : "NAK", text.slice(0, 400));
    }
    case "END":
      s.caps.negotiating = false;
      return s.tryRegister();
    default:
      s.numeric(ERR_INVALIDCAPCMD, sub.slice(0, 16) || "*", "Invalid CAP command");
  }
}

/** Every command a client may send. */
export const COMMANDS: Record<string, Command> = {
  CAP: { early: true, min: 1, run: cap },
  AUTHENTICATE: { early: true, min: 1, run: authenticateCmd },
  PASS: {
    early: true,
    min: 1,
    run: (s, m) => {
      if (s.registered) return s.numeric(ERR_ALREADYREGISTERED, "You may not reregister");
      s.password = m.params[0];
    },
  },
  NICK: {
    early: true,
    min: 1,
    run: (s, m) => {
      if (!s.registered) {
        s.nick = m.params[0].slice(0, 64);
        return s.tryRegister();
      }
      // As /nick in the web client: the wanted nick changes too, so Parley does not take the old
      // one back. A refusal (433, in use) is this client's answer; the new nick everyone's.
      return command(s, m, `/nick ${m.params[0]}`, true);
    },
  },
  USER: {
    early: true,
    min: 4,
    run: (s, m) => {
      if (s.registered) return s.numeric(ERR_ALREADYREGISTERED, "You may not reregister");
      s.username = m.params[0].slice(0, 400);
      return s.tryRegister();
    },
  },
  PING: {
    early: true,
    min: 1,
    run: (s, m) => s.reply("PONG", [SERVER_NAME, m.params[0]]),
  },
  PONG: { early: true, run: () => {} },
  QUIT: { early: true, run: (s) => s.quit("Client quit") },
  PRIVMSG: { min: 2, run: (s, m) => say(s, m, "PRIVMSG") },
  NOTICE: { min: 2, run: (s, m) => say(s, m, "NOTICE") },
  JOIN: joinOrPart,
  PART: joinOrPart,
  TOPIC: passOn,
  KICK: { min: 2, run: (s, m) => upstream(s, m) },
  INVITE: { min: 2, run: (s, m) => upstream(s, m) },
  AWAY: { early: true, run: away },
  MODE: { min: 1, run: mode },
  WHOIS: passOn,
  WHOWAS: passOn,
  WHO: PASS_THROUGH,
  NAMES: PASS_THROUGH,
  TAGMSG: { min: 1, run: tagmsg },
  MONITOR: { min: 1, run: monitor },
  SETNAME: { min: 1, run: setname },
  // Not offered (draft/multiline): a client's BATCH would leave the server's half open.
  BATCH: { run: (s, m) => s.numeric(ERR_UNKNOWNCOMMAND, m.command, "Unknown command") },
  BOUNCER: { early: true, min: 1, run: bouncer },
  WEBPUSH: { min: 1, run: webpushCommand },
  SEARCH: {
    min: 1,
    run: async (s, m) => {
      if (!s.caps.has("soju.im/search")) {
        return s.numeric(ERR_UNKNOWNCOMMAND, "SEARCH", "Unknown command");
      }
      if (!s.hub) return unbound(s, m);
      const hub = s.hub;
      s.writeHistory(
        await search(s.cx.store, {
          userId: hub.userId,
          connectionId: hub.connectionId,
          nick: hub.nick,
          isChannel: (name) => hub.isChannel(name),
        }, m.params[0]),
      );
    },
  },
  CHATHISTORY: {
    min: 1,
    run: async (s, m) => {
      if (!s.hub) return unbound(s, m);
      if (!s.caps.has("draft/chathistory")) {
        return s.numeric(ERR_UNKNOWNCOMMAND, "CHATHISTORY", "Unknown command");
      }
      const lines = await s.cx.history.chathistory(s.scope(), m.params, {
        batch: s.caps.has("batch"),
        eventPlayback: s.caps.has("draft/event-playback"),
      });
      s.writeHistory(lines);
    },
  },
  MARKREAD: {
    // No fewest parameters: draft/read-marker answers a bare MARKREAD with its own FAIL.
    run: async (s, m) => {
      if (!s.hub) return unbound(s, m);
      if (!s.caps.has("draft/read-marker")) {
        return s.numeric(ERR_UNKNOWNCOMMAND, "MARKREAD", "Unknown command");
      }
      s.writeHistory(await s.cx.history.markRead(s.scope(), m.params));
    },
  },
};
