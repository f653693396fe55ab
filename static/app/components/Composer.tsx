/** The message box: Enter sends, Shift+Enter breaks the line, Up recalls, Tab completes. */
import { useEffect, useRef, useState } from "preact/hooks";
import { t } from "../i18n.ts";
import { parseInput, SERVER_COMMANDS } from "../commands.ts";
import { applyCompletion, type Completion, nextCompletion, startCompletion } from "../complete.ts";
import { navigate } from "../router.ts";
import { socket } from "../session.ts";
import { conversations, key, nicks, pendingJoin, showToast } from "../state.ts";
import { appendLive } from "../view.ts";
import { uploadFile } from "../upload.ts";
import { Icon } from "./Icon.tsx";

const history: string[] = [];

/** Shows a line from the client itself (errors, help) in the open conversation. */
function localLine(text: string, event = "error"): void {
  appendLive({ from: "", message: text, ts: new Date().toISOString(), event });
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
    history.push(input);
    recall.current = -1;
    setText("");
    if (parsed.kind === "client") {
      if (parsed.command === "search") {
        navigate("/chat/search?q=" + encodeURIComponent(parsed.args));
      } else {
        localLine(
          t("Commands: {list}", {
            list: [...SERVER_COMMANDS, "search", "help"].map((c) => "/" + c).join(" "),
          }),
          "help",
        );
      }
      return;
    }
    setBusy(true);
    const answer = await socket.request({
      method: "send",
      connection_id: p.cid,
      conversation_id: p.conv,
      message: parsed.message,
    });
    setBusy(false);
    if (answer.errors) {
      localLine(answer.errors.map((e: { message: string }) => e.message).join(" "));
      if (!text) setText(input);
      return;
    }
    if (parsed.command === "join") {
      const name = parsed.message.split(/\s+/)[1] ?? "";
      const conv = name.toLowerCase();
      if (conversations.value[key(p.cid, conv)]) {
        navigate(`/chat/${encodeURIComponent(p.cid)}/${encodeURIComponent(conv)}`);
      } else Object.assign(pendingJoin, { cid: p.cid, conv });
    }
    if (
      (parsed.command === "query" || parsed.command === "msg") &&
      answer.conversation_id !== undefined && answer.conversation_id !== p.conv
    ) {
      navigate(`/chat/${encodeURIComponent(p.cid)}/${encodeURIComponent(answer.conversation_id)}`);
    }
    if (answer.whois) localLine(JSON.stringify(answer.whois), "help");
    if (answer.names) {
      localLine(
        answer.names.map((n: { nick: string; modes?: string[] }) =>
          (n.modes?.join("") ?? "") + n.nick
        ).join(" "),
        "help",
      );
    }
    if (answer.channels) {
      localLine(
        answer.channels.slice(0, 50).map((c: { name: string; users: number }) =>
          `${c.name} (${c.users})`
        ).join(", "),
        "help",
      );
    }
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
      else c = startCompletion(text, el.selectionStart ?? text.length, nickList, channels);
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
        style={{ height: `${Math.min(8, text.split("\n").length) * 1.5 + 1}em` }}
      />
      <button type="submit" class="primary send" disabled={busy || !text.trim()}>
        {t("Send")}
      </button>
    </form>
  );
}
