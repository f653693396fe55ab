/**
 * What happens on IRC, as the user sees it: messages are stored, conversations created on join
 * and on the first private message, topics kept, and every event published on the bus.
 */
import { log } from "../../lib/log.ts";
import { formatMicros, nowMicros } from "../../lib/time.ts";
import { parseChatLine } from "./chat_line.ts";
import type { ChatType } from "../../store/message_types.ts";
import type { ChannelStateEvent, OmitEach } from "../../lib/events.ts";
import type { IrcConnection } from "../engine/connection.ts";
import type { IrcClient, IrcEvent } from "../engine/framework.ts";
import { conversationFor, type RecordDeps, recordMessage } from "./record.ts";
import { lineTime, serverTimeEnabled } from "./server_time.ts";
import { publishFrozen } from "./frozen.ts";
import { Presence } from "./presence.ts";
import type { EventType } from "../../store/message_types.ts";
import { infoStateEvent } from "../resources.ts";

/** A line that may be a 001-004 (checked cheaply: every line from the server passes here). */
const WELCOME = /^(?:@\S+ +)?(?::\S+ +)?00[1-4] /;

/** The text of a 001-004 line (after the nick), or undefined for any other line. */
export function welcomeText(line: string): { numeric: string; text: string } | undefined {
  const m = /^(?:@\S+ +)?(?::\S+ +)?(00[1-4]) +\S+ *(.*)$/.exec(
    line.slice(0, 1024).replace(/[\r\n]+$/, ""),
  );
  if (!m) return undefined;
  const rest = m[2];
  const colon = rest.startsWith(":") ? 0 : rest.indexOf(" :");
  const text = colon < 0
    ? rest
    : colon === 0
    ? rest.slice(1)
    : `${rest.slice(0, colon)} ${rest.slice(colon + 2)}`;
  return { numeric: m[1], text: text.replace(/[\r\n\0]/g, "").trim() };
}

/** Runs `fn` after everything queued before it for the same connection, so order is kept. */
export type Serial = ((fn: () => Promise<void>) => void) & {
  /** Resolves once everything queued so far has run (before the store closes). */
  drained(): Promise<void>;
  /** Steps queued and not yet finished. */
  pending(): number;
};

/** A serial runner; a failing step is logged and does not stop the ones after it. */
export function serial(label: string): Serial {
  let chain = Promise.resolve();
  let pending = 0;
  const done = () => void pending--;
  const run = (fn: () => Promise<void>) => {
    pending++;
    chain = chain.then(fn).catch((err) => log.error("irc event failed", { label, error: err }))
      .then(done);
  };
  return Object.assign(run, { drained: () => chain, pending: () => pending });
}

/** irc-framework's parsed PREFIX back in ISUPPORT's form, "(ov)@+"; undefined when unusable. */
export function prefixString(prefix: unknown): string | undefined {
  if (!Array.isArray(prefix) || prefix.length > 16) return undefined;
  let modes = "";
  let signs = "";
  for (const p of prefix) {
    const { mode, symbol } = p as { mode?: unknown; symbol?: unknown };
    if (typeof mode !== "string" || typeof symbol !== "string") return undefined;
    if (!/^[A-Za-z]$/.test(mode) || !/^[^\sA-Za-z0-9,]$/.test(symbol)) return undefined;
    modes += mode;
    signs += symbol;
  }
  return `(${modes})${signs}`;
}

/** Attaches the handlers of incoming IRC events to a fresh client of `conn`. */
export function attachInbound(
  deps: RecordDeps,
  conn: IrcConnection,
  client: IrcClient,
  run: Serial,
): void {
  const on = (
    event: string,
    fn: (ev: IrcEvent) => Promise<void> | void,
    wanted?: (ev: IrcEvent) => boolean,
  ) =>
    client.on(event, (ev) => {
      if (conn.client !== client || (wanted && !wanted(ev))) return;
      const ts = lineTime(ev?.time, serverTimeEnabled(client));
      run(async () => await fn({ ...ev, ts }));
    });
  const publish = (ev: OmitEach<ChannelStateEvent, "event" | "connection_id">) =>
    deps.bus.publish(conn.userId, { event: "state", connection_id: conn.id, ...ev });
  const convId = (name: string) => conn.conversationId(name);
  const server = (text: string, ts: number, type: ChatType = "notice") =>
    recordMessage(deps, conn, { name: "", from: conn.url.host, type, text, ts });

  const message = (type: ChatType) => async (ev: IrcEvent) => {
    const target = String(ev.target ?? "");
    const text = String(ev.message ?? "");
    if (ev.from_server || !ev.nick || target === "*" || (!conn.nick && type === "notice")) {
      await server(text, ev.ts);
      return;
    }
    const own = conn.isMe(ev.nick);
    // A channel message belongs to the channel; a private one to the other person's nick.
    const name = conn.isChannel(target) ? target : own ? target : ev.nick;
    await recordMessage(deps, conn, { name, from: ev.nick, type, text, ts: ev.ts, own });
  };
  const byKind = {
    privmsg: message("private"),
    action: message("action"),
    notice: message("notice"),
  };
  on("privmsg", byKind.privmsg);
  on("action", byKind.action);
  on("notice", byKind.notice);

  // The lean path (irc/chat/chat_line.ts): a person's chat line to a channel or to the user skips
  // irc-framework, and consecutive ones are recorded in one step of the serial queue. Any other
  // line closes the step, so the order of events is kept.
  let batch: (IrcEvent & { kind: keyof typeof byKind })[] | undefined;
  /** Lean lines queued and not yet recorded. */
  let unrecorded = 0;
  // What the transport holds its next slice back for (irc/socket/transport.ts, MAX_BACKLOG).
  conn.backlog = () => run.pending() + unrecorded;
  conn.lineHook = (from, line) => {
    const chat = from === client && conn.nick ? parseChatLine(line) : undefined;
    if (!chat || !(conn.isChannel(chat.target) || conn.isMe(chat.target))) {
      batch = undefined;
      return false;
    }
    const ts = chat.time === undefined
      ? nowMicros()
      : lineTime(chat.time, serverTimeEnabled(client));
    const ev = { kind: chat.kind, nick: chat.nick, target: chat.target, message: chat.text, ts };
    if (!batch) {
      const lines = batch = [ev];
      run(async () => {
        // Lines pushed while the step runs are still iterated; one failing does not stop the rest.
        for (const line of lines) {
          try {
            await byKind[line.kind](line);
          } catch (err) {
            log.error("irc event failed", { label: conn.id, error: err });
          }
          unrecorded--;
        }
        if (batch === lines) batch = undefined;
      });
    } else batch.push(ev);
    unrecorded++;
    return true;
  };

  // Convos's `info.authenticated`: a SASL or services login on this (fresh) client.
  conn.info.authenticated = false;
  // The server's PREFIX (ISUPPORT 005, after the welcome): the modes that rank channel members
  // and their signs, as "(qaohv)~&@%+". The web client ranks its member lists by it.
  on("server options", () => {
    const prefix = prefixString(client.network.options.PREFIX);
    if (prefix === undefined || prefix === conn.info.prefix) return;
    conn.info.prefix = prefix;
    deps.bus.publish(conn.userId, infoStateEvent(conn));
  });
  on("loggedin", () => void (conn.info.authenticated = true));
  on("loggedout", () => void (conn.info.authenticated = false));

  // The server's greeting (001-004) is shown as Convos shows it, after "Connected to".
  on("raw", async (ev) => {
    const greeting = welcomeText(String(ev.line ?? ""));
    if (!greeting) return;
    if (greeting.numeric === "001") {
      // Stored by the manager, after the "connected" state it announces on `registered`.
      conn.welcome = { text: greeting.text, ts: ev.ts };
      return;
    }
    if (greeting.text) await server(greeting.text, ev.ts);
  }, (ev) => ev.from_server === true && WELCOME.test(String(ev.line ?? "")));
  on("motd", (ev) => server(String(ev.motd ?? ev.error ?? "").trimEnd(), ev.ts));
  on("irc error", async (ev) => {
    const text = [ev.error, ev.channel ?? ev.nick, ev.reason].filter(Boolean).join(": ");
    await server(text, ev.ts);
    publish({
      type: "error",
      conversation_id: ev.channel ? convId(ev.channel) : ev.nick ? convId(ev.nick) : "",
      message: String(ev.reason ?? ev.error),
      error: ev.error,
    });
  });

  // Channel events are kept in history (issue 16): never unread, notified or searchable.
  const presence = new Presence();
  const lower = (nick: unknown) => conn.conversationId(String(nick ?? ""));
  const keep = async (name: string, type: EventType, from: string, text: string, ts: number) => {
    const conv = await deps.store.conversations.get(conn.record.id, convId(name));
    if (!conv) return;
    await deps.store.messages.append({
      conversation: conv.id,
      userId: conn.userId,
      from: from.slice(0, 100),
      type,
      text: text.slice(0, 1000),
      ts,
      highlight: false,
    });
  };
  const why = (reason: unknown) => (reason ? `: ${String(reason)}` : ".");

  on("userlist", (ev) => {
    const channel = convId(String(ev.channel));
    for (const u of (ev.users ?? []) as { nick?: string }[]) presence.join(channel, lower(u.nick));
  });
  on("join", async (ev) => {
    const channel = String(ev.channel);
    presence.join(convId(channel), lower(ev.nick));
    if (conn.isMe(ev.nick)) {
      const conv = await conversationFor(deps, conn, channel);
      if (!conv) return; // over the conversation cap
      if (!conv.joined) await deps.store.conversations.setJoined(conv.id, true);
      // Joined: the channel takes messages again (Convos's client enables it on this event).
      publishFrozen(deps.bus, conn.userId, [{ ...conv, joined: true }], "");
    }
    publish({ type: "join", conversation_id: convId(channel), nick: ev.nick });
    await keep(channel, "join", String(ev.nick), `${ev.nick} joined.`, ev.ts);
  });
  on("part", async (ev) => {
    const channel = String(ev.channel);
    presence.part(convId(channel), lower(ev.nick), conn.isMe(ev.nick));
    await keep(channel, "part", String(ev.nick), `${ev.nick} left${why(ev.message)}`, ev.ts);
    if (conn.isMe(ev.nick)) await leave(channel);
    publish({ type: "part", conversation_id: convId(channel), nick: ev.nick, message: ev.message });
  });
  on("kick", async (ev) => {
    const channel = String(ev.channel);
    presence.part(convId(channel), lower(ev.kicked), conn.isMe(ev.kicked));
    const text = `${ev.kicked} was kicked by ${ev.nick}${why(ev.message)}`;
    await keep(channel, "kick", String(ev.nick), text, ev.ts);
    if (conn.isMe(ev.kicked)) await leave(channel);
    // Convos sends a kick as a part with the kicker.
    publish({
      type: "part",
      conversation_id: convId(channel),
      nick: ev.kicked,
      kicker: ev.nick,
      message: ev.message,
      ts: formatMicros(ev.ts),
    });
  });
  on("quit", async (ev) => {
    publish({ type: "quit", nick: ev.nick, message: ev.message });
    const text = `${ev.nick} quit${why(ev.message)}`;
    for (const channel of [...presence.quit(lower(ev.nick)), String(ev.nick)]) {
      await keep(channel, "quit", String(ev.nick), text, ev.ts);
    }
  });
  on("nick", async (ev) => {
    publish({ type: "nick_change", old_nick: ev.nick, new_nick: ev.new_nick });
    const text = `${ev.nick} is now known as ${ev.new_nick}.`;
    for (
      const channel of [...presence.rename(lower(ev.nick), lower(ev.new_nick)), String(ev.nick)]
    ) {
      await keep(channel, "nick_change", String(ev.nick), text, ev.ts);
    }
    // A private conversation follows the person to their new nick (unless one exists already).
    const store = deps.store.conversations;
    const old = await store.get(conn.record.id, convId(String(ev.nick)));
    const newId = convId(String(ev.new_nick));
    if (old && !conn.isMe(ev.new_nick) && !(await store.get(conn.record.id, newId))) {
      await store.rename(old.id, newId, String(ev.new_nick));
      publish({
        type: "rename",
        old_conversation_id: old.conversationId,
        conversation_id: newId,
        name: String(ev.new_nick),
      });
    }
  });
  on("topic", async (ev) => {
    const channel = String(ev.channel);
    const conv = await deps.store.conversations.get(conn.record.id, convId(channel));
    if (conv && conv.topic !== ev.topic) {
      await deps.store.conversations.setTopic(conv.id, String(ev.topic ?? ""));
    }
    publish({ type: "topic", conversation_id: convId(channel), topic: ev.topic, nick: ev.nick });
    // Only a change someone made: the topic the server tells on every join is not news.
    if (ev.nick) {
      const topic = String(ev.topic ?? "");
      const text = topic
        ? `${ev.nick} changed the topic to: ${topic}`
        : `${ev.nick} cleared the topic.`;
      await keep(channel, "topic", String(ev.nick), text, ev.ts);
    }
  });
  on("mode", async (ev) => {
    const target = String(ev.target ?? "");
    if (conn.isChannel(target) && ev.nick) {
      const mode = [ev.raw_modes, ...(ev.raw_params ?? [])].join(" ");
      await keep(target, "mode", String(ev.nick), `${ev.nick} set mode ${mode}.`, ev.ts);
    }
    publish({
      type: "mode",
      conversation_id: conn.isChannel(target) ? convId(target) : "",
      target,
      mode: [ev.raw_modes, ...(ev.raw_params ?? [])].join(" "),
      nick: ev.nick,
    });
  });

  async function leave(channel: string) {
    const conv = await deps.store.conversations.get(conn.record.id, convId(channel));
    if (conv?.joined) await deps.store.conversations.setJoined(conv.id, false);
  }
}
