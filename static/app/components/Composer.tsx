/** The message box: Enter sends, Shift+Enter breaks the line, Up recalls, Tab completes. */
import { useEffect, useRef, useState } from "preact/hooks";
import { t } from "../i18n.ts";
import { CLIENT_HANDLERS, completableCommands, type Parsed, parseInput } from "../commands.ts";
import type { SentFrame } from "../../../lib/events.ts";
import { type Member, membersOpen, setMembers } from "../members.ts";
import { applyCompletion, type Completion, nextCompletion, startCompletion } from "../complete.ts";
import { navigate } from "../router.ts";
import { socket } from "../session.ts";
import { conversations, key, nicks, showToast, user } from "../state.ts";
import { appendLive } from "../view.ts";
import { openJoined } from "../join.ts";
import { uploadFile } from "../upload.ts";
import { Icon } from "./Icon.tsx";

const history: string[] = [];

/** Shows a line from the client itself (errors, help) in the open conversation. */
function localLine(text: string, event = "error", data?: unknown): void {
  appendLive({ from: "", message: text, ts: new Date().toISOString(), event, data });
}

/** Shows what a command answered, readably: tables, the member list, confirmations. */
function showAnswer(
  cid: string,
  conv: string,
  parsed: Parsed & { kind: "send" },
  answer: SentFrame,
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
  if (answer.invited) {
    localLine(t("Invited {nick} to {channel}.", answer.invited), "info");
  }
  if (
    (parsed.command === "query" || parsed.command === "msg") &&
    answer.conversation_id !== undefined && answer.conversation_id !== conv
  ) {
    navigate(`/chat/${encodeURIComponent(cid)}/${encodeURIComponent(answer.conversation_id)}`);
  }
  if (parsed.command === "away") {
    localLine(
      args.length
        ? t("You are marked as away: {message}", { message: args.join(" ") })
        : t("You are no longer marked as away."),
      "info",
    );
  }
  if (answer.ignored) {
    localLine(
      t("Ignoring {mask}: their messages are hidden on every device.", {
        mask: answer.ignored,
      }),
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
  const w = answer.whois as { nick?: string; error?: string } | undefined;
  if (w && typeof w === "object") {
    const nick = String(w.nick ?? args[0] ?? "");
    // "No such nick" comes from the server as an error event too: shown once, by session.ts.
    if (w.error === "not_found") return;
    if (w.error) localLine(t("No answer about {nick} from the server.", { nick }));
    else localLine("", "whois", w);
  }
  if (Array.isArray(answer.names)) {
    const channel = (args[0] ?? conv).toLowerCase();
    const list = (answer.names as Member[]).map((n) => ({ nick: n.nick, modes: n.modes ?? [] }));
    setMembers(key(cid, channel), list);
    if (channel === conv) membersOpen.value = true;
    localLine(t("{n} members in {channel}", { n: list.length, channel }), "info");
  }
  if (Array.isArray(answer.channels)) localLine("", "list", answer.channels);
}

/** The composer of conversation `conv` on connection `cid`. */
export function Composer(p: { cid: string; conv: string }) {
  const [text, setText] = useState("");
  const [busy, setBusy] = useState(false);
  const ref = useRef<HTMLTextAreaElement>(null);
  const completion = useRef<Completion | null>(null);
  const recall = useRef(-1);
  const fileRef = useRef<HTMLInputElement>(null);
  useEffect(() => {
    // On a wide screen the message box takes the focus when a conversation opens; on a phone
    // that would pop the keyboard up over the history.
    if (matchMedia("(min-width: 761px)").matches) ref.current?.focus();
  }, [p.cid, p.conv]);

  const insert = (s: string) => {
    const el = ref.current!;
    const start = el.selectionStart ?? text.length;
    const next = text.slice(0, start) + (start && !/\s$/.test(text.slice(0, start)) ? " " : "") +
      s + " " + text.slice(el.selectionEnd ?? start);
    setText(next);
    el.focus();
  };

  const upload = async (files: FileList | File[] | null) => {
    for (const f of Array.from(files ?? [])) {
      try {
        showToast(t("Uploading {name}…", { name: f.name || "image" }));
        insert(await uploadFile(f));
        showToast(t("Uploaded."));
      } catch (e) {
        showToast(t("Upload failed: {error}", { error: (e as Error).message }));
      }
    }
  };

  // The conversation this composer belongs to now: an answer may arrive after the user moved on.
  const here = useRef("");
  here.current = key(p.cid, p.conv);

  const send = async () => {
    const input = text;
    const parsed = parseInput(input);
    if (parsed.kind === "empty") return;
    if (parsed.kind === "unknown") {
      localLine(t("Unknown command: /{command}. Type /help to see the commands.", {
        command: parsed.command,
      }));
      return;
    }
    if (parsed.kind === "client") {
      history.push(input);
      setText("");
      CLIENT_HANDLERS[parsed.command](parsed.args, {
        navigate,
        showHelp: () => localLine("", "help"),
      });
      return;
    }
    const from = key(p.cid, p.conv);
    recall.current = -1;
    setText("");
    setBusy(true);
    const answer = await socket.request({
      method: "send",
      connection_id: p.cid,
      conversation_id: p.conv,
      message: parsed.message,
    });
    setBusy(false);
    if (answer.errors) {
      // Nothing typed is lost: the text goes back into the box (unless something new was typed
      // there meanwhile, or the user moved to another conversation) to be sent again.
      if (here.current === from) setText((now) => (now === "" ? input : now));
      localLine(
        t("Not sent: {error}", {
          error: answer.errors.map((e: { message: string }) => e.message).join(" "),
        }),
      );
      return;
    }
    history.push(input);
    showAnswer(p.cid, p.conv, parsed, answer);
  };

  const onKeyDown = (e: KeyboardEvent) => {
    const el = ref.current!;
    if (e.key === "Tab" && !e.ctrlKey && !e.altKey) {
      const k = key(p.cid, p.conv);
      const nickList = [...(nicks.get(k) ?? [])].reverse();
      const channels = Object.values(conversations.value)
        .filter((c) => c.connection_id === p.cid && /^[#&]/.test(c.name)).map((c) => c.name);
      let c = completion.current;
      if (c) c = nextCompletion(c, e.shiftKey ? -1 : 1);
      else {
        const commands = completableCommands(user.value?.roles ?? []);
        c = startCompletion(text, el.selectionStart ?? text.length, nickList, channels, commands);
      }
      if (!c) return; // nothing to complete: let Tab move the focus
      e.preventDefault();
      completion.current = c;
      const out = applyCompletion(c);
      setText(out.text);
      requestAnimationFrame(() => el.setSelectionRange(out.cursor, out.cursor));
      return;
    }
    completion.current = null;
    if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
      e.preventDefault();
      if (!busy) void send();
    } else if (
      e.key === "ArrowUp" && history.length && (!text || recall.current >= 0) &&
      !text.includes("\n")
    ) {
      e.preventDefault();
      recall.current = recall.current < 0 ? history.length - 1 : Math.max(0, recall.current - 1);
      setText(history[recall.current]);
    } else if (e.key === "ArrowDown" && recall.current >= 0) {
      e.preventDefault();
      recall.current++;
      if (recall.current >= history.length) {
        recall.current = -1;
        setText("");
      } else setText(history[recall.current]);
    }
  };

  return (
    <form
      class="composer"
      onSubmit={(e) => {
        e.preventDefault();
        void send();
      }}
      onDragOver={(e) => e.preventDefault()}
      onDrop={(e) => {
        e.preventDefault();
        void upload(e.dataTransfer?.files ?? null);
      }}
    >
      <label for="composer-input" class="visually-hidden">{t("Message")}</label>
      <button
        type="button"
        class="icon-button"
        aria-label={t("Upload a file")}
        title={t("Upload a file")}
        onClick={() => fileRef.current!.click()}
      >
        <Icon name="clip" size={20} />
      </button>
      <input
        ref={fileRef}
        type="file"
        class="visually-hidden"
        tabIndex={-1}
        aria-label={t("Upload a file")}
        onChange={(e) => {
          const input = e.currentTarget as HTMLInputElement;
          void upload(input.files).then(() => (input.value = ""));
        }}
      />
      <textarea
        id="composer-input"
        ref={ref}
        rows={1}
        value={text}
        placeholder={t("Message")}
        onInput={(e) => {
          setText((e.currentTarget as HTMLTextAreaElement).value);
          completion.current = null;
        }}
        onKeyDown={onKeyDown}
        onPaste={(e) => {
          const files = [...(e.clipboardData?.files ?? [])].filter((f) =>
            f.type.startsWith("image/")
          );
          if (files.length) {
            e.preventDefault();
            void upload(files);
          }
        }}
        autoComplete="off"
        enterkeyhint="send"
        // A scroll bar only when the text is taller than the box may grow (eight lines).
        style={{
          height: `${Math.min(8, text.split("\n").length) * 1.5 + 1}em`,
          overflowY: text.split("\n").length > 8 ? "auto" : "hidden",
        }}
      />
      <button type="submit" class="primary send" disabled={busy || !text.trim()}>
        {t("Send")}
      </button>
    </form>
  );
}
