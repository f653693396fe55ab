/** Running a server command from anywhere in the client and showing its answer where the user is. */
import { api } from "./api.ts";
import { language, t } from "./i18n.ts";
import type { Parsed } from "./commands.ts";
import { parseInput } from "./commands.ts";
import type { SentFrame } from "../../protocol/events.ts";
import { type Member, membersMark, membersOpen, setAwayNick, setMembers } from "./members.ts";
import { chatPath, navigate } from "./router.ts";
import { socket } from "./session.ts";
import { away, key, myNick } from "./state.ts";
import { openJoined } from "./join.ts";
import { appendLive } from "./view.ts";
import { withConnectionName } from "./conn_status.ts";

/** Shows a line from the client itself (errors, help) in the open conversation. */
export function localLine(text: string, event = "error", data?: unknown): void {
  appendLive({ from: "", message: text, ts: new Date().toISOString(), event, data });
}

/**
 * `/bouncerserv <command>`: BouncerServ runs it as for an attached IRC client; its answers are
 * shown in the open conversation, as lines from BouncerServ kept nowhere.
 */
export async function runBouncerServ(cid: string, command: string): Promise<void> {
  try {
    const { lines } = await api("runBouncerServ", { body: { command, connection_id: cid } });
    for (const line of lines) {
      appendLive({
        from: "BouncerServ",
        message: line,
        ts: new Date().toISOString(),
        type: "notice",
      });
    }
  } catch (e) {
    localLine(t("Not sent: {error}", { error: (e as Error).message }));
  }
}

/** Seconds to the millisecond, in the reader's language's digits. */
const seconds = (s: number) =>
  s.toLocaleString(language.value, { minimumFractionDigits: 3, maximumFractionDigits: 3 });

/** A `/ctcp` answer in words: the text, a PING's round trip, or that none came. */
function ctcpWords(c: NonNullable<SentFrame["ctcp"]>): string {
  const { nick, type } = c;
  if (c.reply === undefined) return t("No answer to {type} from {nick}.", { nick, type });
  if (c.seconds !== undefined) {
    return t("{nick} answered PING in {seconds} s.", { nick, seconds: seconds(c.seconds) });
  }
  return t("{nick} answered {type}: {reply}", { nick, type, reply: c.reply });
}

/** Shows what a command answered, readably: tables, the member list, confirmations. */
export function showAnswer(
  cid: string,
  conv: string,
  parsed: Parsed & { kind: "send" },
  answer: SentFrame,
  since?: number,
) {
  const args = parsed.message.split(/\s+/).slice(1);
  // The server names the channel it joins (`/join parley` joins #parley).
  if (parsed.command === "join") openJoined(cid, answer.conversation_id ?? args[0] ?? "");
  if (parsed.command === "mode" && answer.modes !== undefined) {
    const channel = answer.conversation_id ?? conv;
    localLine(
      // A server may say "+" for none.
      /[A-Za-z]/.test(answer.modes)
        ? t("Modes of {channel}: {modes}", { channel, modes: answer.modes })
        : t("No modes are set on {channel}.", { channel }),
      "info",
    );
  }
  if (parsed.command === "topic" && !args.length && answer.topic !== undefined) {
    const channel = answer.conversation_id ?? conv;
    localLine(
      answer.topic
        ? t("Topic of {channel}: {topic}", { channel, topic: answer.topic })
        : t("{channel} has no topic.", { channel }),
      "info",
    );
  }
  if (answer.invited) localLine(t("Invited {nick} to {channel}.", answer.invited), "info");
  if (parsed.command === "ison" && answer.nick && answer.online !== undefined) {
    const nick = answer.nick;
    localLine(
      answer.online ? t("{nick} is on IRC.", { nick }) : t("{nick} is not on IRC.", { nick }),
      "info",
    );
  }
  if (answer.ctcp) localLine(ctcpWords(answer.ctcp), "info");
  if (answer.ignored) {
    localLine(
      t("Ignoring {mask}: their messages are hidden on every device.", { mask: answer.ignored }),
      "info",
    );
  } else if (answer.unignored) {
    localLine(t("No longer ignoring {mask}.", { mask: answer.unignored }), "info");
  } else if (parsed.command === "ignore" && answer.ignores) {
    localLine(
      answer.ignores.length
        ? t("Ignored: {list}", { list: answer.ignores.join(", ") })
        : t("Nobody is ignored."),
      "info",
    );
  }
  if (
    (parsed.command === "query" || parsed.command === "msg") &&
    answer.conversation_id !== undefined && answer.conversation_id !== conv
  ) {
    navigate(chatPath(cid, answer.conversation_id));
  }
  if (parsed.command === "away" || parsed.command === "back") {
    const message = parsed.command === "away" ? args.join(" ") : "";
    localLine(
      message
        ? t("You are marked as away: {message}", { message })
        : t("You are no longer marked as away."),
      "info",
    );
    setAway(cid, message);
  }
  const w = answer.whois as { nick?: string; error?: string } | undefined;
  if (w && typeof w === "object") {
    const nick = String(w.nick ?? args[0] ?? "");
    // "No such nick" comes from the server as an error event too: shown once, by session.ts.
    if (w.error === "not_found") return;
    if (w.error) localLine(t("No answer about {nick} from the server.", { nick }));
    else {
      localLine("", "whois", w);
      if (w.nick) setAwayNick(cid, w.nick, !!(w as { away?: string }).away);
    }
  }
  if (Array.isArray(answer.names)) {
    const channel = (args[0] ?? conv).toLowerCase();
    const list = (answer.names as Member[]).map((n) => ({ nick: n.nick, modes: n.modes ?? [] }));
    setMembers(key(cid, channel), list, since);
    for (const n of answer.names) if (n.away) setAwayNick(cid, n.nick, true);
    if (channel === conv) membersOpen.value = true;
    localLine(t("{n} members in {channel}", { n: list.length, channel }), "info");
  }
  if (Array.isArray(answer.channels)) localLine("", "list", answer.channels);
}

/** Remembers (or forgets, with "") that the user is away on a connection. */
function setAway(cid: string, message: string): void {
  const next = { ...away.value };
  if (message) next[cid] = message;
  else delete next[cid];
  away.value = next;
  setAwayNick(cid, myNick(cid), !!message);
}

/**
 * Sends a command line typed elsewhere than the message box (a nick's menu, a close button) and
 * shows its answer; a refusal is shown as a "Not sent" line. Resolves with whether it was sent.
 */
export async function runCommand(cid: string, conv: string, line: string): Promise<boolean> {
  const parsed = parseInput(line);
  if (parsed.kind !== "send") return false;
  const since = membersMark();
  const answer = await socket.request({
    method: "send",
    connection_id: cid,
    conversation_id: conv,
    message: parsed.message,
  });
  if (answer.errors) {
    localLine(t("Not sent: {error}", {
      error: withConnectionName(
        answer.errors.map((e: { message: string }) => e.message).join(" "),
        cid,
      ),
    }));
    return false;
  }
  showAnswer(cid, conv, parsed, answer, since);
  return true;
}
