/**
 * The message box: Enter sends, Shift+Enter breaks the line, Up recalls, Tab completes, and a
 * popup offers commands, nicks and channels while a word is typed.
 */
import { useEffect, useRef, useState } from "preact/hooks";
import { t } from "../i18n.ts";
import { CLIENT_HANDLERS, completableCommands, parseInput } from "../commands.ts";
import { members, membersMark } from "../members.ts";
import { localLine, runBouncerServ, runCommand, showAnswer } from "../actions.ts";
import type { Completion, completionNicks } from "../complete.ts";
import type { Popup } from "../popup.ts";
import { commandsFor } from "../../../protocol/command_table.ts";
import { afterLoad } from "../lazy.tsx";
import { tagsChunk } from "../tags_state.ts";
import { navigate } from "../router.ts";
import { socket } from "../session.ts";
import { away, connections, conversations, key, myNick, nicks, toast, user } from "../state.ts";
import { showKeys } from "../overlays.ts";
import { Icon } from "./Icon.tsx";
import { withConnectionName } from "../conn_status.ts";
import { clearDraft, draftChanged, flushDraft, loadDraft } from "../conv_prefs.ts";

/** The after-paint chunk, once it has come: completion is in it. */
type AfterLoad = NonNullable<ReturnType<typeof afterLoad.get>>;

const history: string[] = [];

// What the completion popup offers, fetched when the box first takes the focus.

/** Formatting keys: Ctrl+B, Ctrl+U and Ctrl+I insert IRC's bold, underline and italic codes. */
const FORMAT_KEYS: Record<string, string> = { b: "\x02", u: "\x1f", i: "\x1d" };

/** The composer of conversation `conv` on connection `cid`. */
export function Composer(p: { cid: string; conv: string }) {
  const [text, setText] = useState("");
  const [busy, setBusy] = useState(false);
  const ref = useRef<HTMLTextAreaElement>(null);
  const completion = useRef<Completion | null>(null);
  const recall = useRef(-1);
  const fileRef = useRef<HTMLInputElement>(null);
  // The popup follows the cursor; the arrows' choice holds until the word changes; Escape closes
  // it until the text changes.
  const [cursor, setCursor] = useState(0);
  const [choice, setChoice] = useState<number | null>(null);
  const [closedAt, setClosedAt] = useState<string | null>(null);
  const [focused, setFocused] = useState(false);
  useEffect(() => {
    // On a wide screen the message box takes the focus when a conversation opens; on a phone
    // that would pop the keyboard up over the history.
    if (matchMedia("(min-width: 761px)").matches) ref.current?.focus();
  }, [p.cid, p.conv]);

  // Each conversation has its own draft, kept on the server: the box shows this one's, and what
  // is typed is saved for it (the previous conversation's is saved first).
  const draftFor = useRef("");
  // Lines sent from the box: a draft read before one was sent is that line, not to come back.
  const sentLines = useRef(0);
  const [draftLoading, setDraftLoading] = useState(true);
  // The server's draft as it came, until the box differs from it: that one needs no saving back.
  const asLoaded = useRef<string | undefined>(undefined);
  useEffect(() => {
    const k = key(p.cid, p.conv);
    void flushDraft();
    draftFor.current = "";
    asLoaded.current = undefined;
    setText("");
    setDraftLoading(true);
    let live = true;
    const sent = sentLines.current;
    void loadDraft(p.cid, p.conv).then((draft) => {
      if (!live) return;
      setText((now) => (now === "" && sent === sentLines.current ? draft : now));
      asLoaded.current = draft;
      draftFor.current = k;
      setDraftLoading(false);
    });
    return () => void (live = false);
  }, [p.cid, p.conv]);
  // Runs when the draft arrives too: what was typed while it loaded is saved then.
  useEffect(() => {
    if (draftFor.current !== key(p.cid, p.conv) || text === asLoaded.current) return;
    asLoaded.current = undefined;
    draftChanged(p.cid, p.conv, text);
  }, [text, draftLoading]);

  const insert = (s: string) => {
    const el = ref.current!;
    const start = el.selectionStart ?? text.length;
    const next = text.slice(0, start) + (start && !/\s$/.test(text.slice(0, start)) ? " " : "") +
      s + " " + text.slice(el.selectionEnd ?? start);
    setText(next);
    el.focus();
  };

  // The after-paint chunk uploads: there already, or fetched now.
  const upload = async (files: FileList | File[] | null) =>
    (await afterLoad.load())?.uploadFiles(files, insert);

  // The conversation this composer belongs to now: an answer may arrive after the user moved on.
  const here = useRef("");
  here.current = key(p.cid, p.conv);

  /**
   * Lines entered while one is still going out: sent after it, in order. An Enter while the box
   * waited for the server's answer was dropped, and typing on then replaced the line unsent.
   */
  const outbox = useRef<string[]>([]);
  const sending = useRef(false);

  const submit = () => {
    if (!sending.current) return void send(text, true);
    if (!text.trim()) return;
    outbox.current.push(text);
    recall.current = -1;
    setText("");
  };

  const send = async (input: string, fromBox: boolean) => {
    sending.current = true;
    try {
      await sendOne(input, fromBox);
    } finally {
      sending.current = false;
    }
    const next = outbox.current.shift();
    if (next !== undefined) await send(next, false);
  };

  /** Sends `input`; `fromBox`: typed in the box now, which it clears (a queued line's is). */
  const sendOne = async (input: string, fromBox: boolean) => {
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
      if (fromBox) setText("");
      CLIENT_HANDLERS[parsed.command](parsed.args, {
        navigate,
        showHelp: () => localLine("", "help"),
        showKeys,
        bouncerServ: (command) => void runBouncerServ(p.cid, command),
      });
      return;
    }
    const from = key(p.cid, p.conv);
    // A reply (chosen on a message) goes out with its `+draft/reply` tag; a command never does.
    const tags = parsed.command ? undefined : tagsChunk.get();
    const message = tags?.outgoing(p.cid, p.conv, parsed.message) ?? parsed.message;
    if (fromBox) {
      sentLines.current++;
      recall.current = -1;
      setText("");
    }
    setBusy(true);
    const since = membersMark();
    const answer = await socket.request({
      method: "send",
      connection_id: p.cid,
      conversation_id: p.conv,
      message,
    });
    setBusy(false);
    if (answer.errors) {
      // Nothing typed is lost: the text goes back into the box (unless something new was typed
      // there meanwhile, or the user moved to another conversation) to be sent again.
      if (here.current === from) setText((now) => (now === "" ? input : now));
      localLine(
        t("Not sent: {error}", {
          error: withConnectionName(
            answer.errors.map((e: { message: string }) => e.message).join(" "),
            p.cid,
          ),
        }),
      );
      return;
    }
    history.push(input);
    void clearDraft(p.cid, p.conv);
    showAnswer(p.cid, p.conv, parsed, answer, since);
    // Any line sent while away ends it, as "/away" alone would.
    if (parsed.command !== "away" && away.value[p.cid] !== undefined) {
      await runCommand(p.cid, p.conv, "/away");
    }
  };

  /** The nicks to complete here, most recent speaker first, and the connection's channels. */
  const sources = (c: { completionNicks: typeof completionNicks }) => {
    const k = key(p.cid, p.conv);
    const nickList = c.completionNicks(
      nicks.get(k) ?? [],
      members.value[k]?.map((m) => m.nick),
      myNick(p.cid),
    );
    const channels = Object.values(conversations.value)
      .filter((c) => c.connection_id === p.cid && /^[#&]/.test(c.name)).map((c) => c.name);
    return { nickList, channels };
  };

  const chunk = afterLoad.get();
  // The popup is drawn by the after-paint chunk: its logic comes from there anyway.
  const PopupList = chunk?.CompletionPopup;
  let popup: Popup | null = null;
  if (chunk && focused && closedAt !== text) {
    const { nickList, channels } = sources(chunk);
    const commands = commandsFor(user.value?.roles ?? []);
    const emojis = chunk.emojisFor(text.slice(0, cursor));
    popup = chunk.popupFor(text, cursor, nickList, channels, commands, emojis);
    if (popup && choice !== null && choice < popup.items.length) {
      popup = { ...popup, index: choice };
    }
  }

  /** Puts `out` in the box at once (the next key may come before it renders again). */
  const place = (out: { text: string; cursor: number }) => {
    const el = ref.current!;
    el.value = out.text;
    el.setSelectionRange(out.cursor, out.cursor);
    setText(out.text);
    setCursor(out.cursor);
    setChoice(null);
  };

  const track = (e: Event) =>
    setCursor((e.currentTarget as HTMLTextAreaElement).selectionStart ?? 0);

  const takePopup = (pop: Popup, index: number) => {
    const el = ref.current!;
    place(
      chunk!.applyCompletion(
        chunk!.choosePopup(text, el.selectionStart ?? text.length, pop, index),
      ),
    );
    el.focus();
  };

  /** The popup's keys; true when `e` was one. */
  const popupKey = (e: KeyboardEvent, pop: Popup): boolean => {
    if (e.ctrlKey || e.altKey || e.metaKey || e.isComposing) return false;
    const n = pop.items.length;
    if (e.key === "ArrowDown" || e.key === "ArrowUp") {
      const step = e.key === "ArrowDown" ? 1 : -1;
      setChoice(pop.index < 0 ? (step > 0 ? 0 : n - 1) : (pop.index + step + n) % n);
      return true;
    }
    if (e.key === "Escape") {
      e.stopPropagation(); // the popup closes, not the drawer or an overlay
      setClosedAt(text);
      return true;
    }
    // Enter on what is typed already sends the line ("#tea" among "#tea" and "#team").
    const typed = text.slice(pop.start, ref.current!.selectionStart ?? text.length);
    if (
      e.key === "Enter" && !e.shiftKey && pop.index >= 0 &&
      pop.items[pop.index].value !== typed
    ) {
      takePopup(pop, pop.index);
      return true;
    }
    if (e.key === "Tab" && !e.shiftKey && pop.index >= 0 && !completion.current) {
      // Tab takes the chosen item and, pressed again, steps on through the popup's list.
      const el = ref.current!;
      const at = el.selectionStart ?? text.length;
      completion.current = chunk!.choosePopup(text, at, pop, pop.index);
      place(chunk!.applyCompletion(completion.current));
      return true;
    }
    return false;
  };

  /** Completes the word at the cursor (or steps to the next match); false when nothing matches. */
  const complete = (done: AfterLoad, el: HTMLTextAreaElement, back: boolean): boolean => {
    const { nickList, channels } = sources(done);
    let c = completion.current;
    if (c) c = done.nextCompletion(c, back ? -1 : 1);
    else {
      const commands = completableCommands(user.value?.roles ?? []);
      c = done.startCompletion(
        el.value,
        el.selectionStart ?? el.value.length,
        nickList,
        channels,
        commands,
      );
    }
    if (!c) return false;
    completion.current = c;
    const out = done.applyCompletion(c);
    setText(out.text);
    setCursor(out.cursor);
    requestAnimationFrame(() => el.setSelectionRange(out.cursor, out.cursor));
    return true;
  };

  const onKeyDown = (e: KeyboardEvent) => {
    const el = ref.current!;
    if (popup && popupKey(e, popup)) {
      e.preventDefault();
      return;
    }
    const code = FORMAT_KEYS[e.key.toLowerCase()];
    if (code && (e.ctrlKey || e.metaKey) && !e.altKey && !e.shiftKey) {
      e.preventDefault();
      const start = el.selectionStart ?? text.length, end = el.selectionEnd ?? start;
      // Around a selection the code marks it; otherwise it starts formatting at the cursor.
      const next = text.slice(0, start) + code + text.slice(start, end) +
        (end > start ? code : "") + text.slice(end);
      // Set in place at once: the next key may come before the box renders again.
      const cursor = end + (end > start ? 2 : 1);
      el.value = next;
      el.setSelectionRange(cursor, cursor);
      setText(next);
      return;
    }
    // Completion comes with the after-paint chunk (fetched when the box is first focused).
    const done = afterLoad.get();
    if (e.key === "Tab" && !e.ctrlKey && !e.altKey) {
      if (done) {
        // Nothing to complete: Tab moves the focus on.
        if (complete(done, el, e.shiftKey)) e.preventDefault();
        return;
      }
      // A word typed and Tab pressed before the chunk came (a slow link, the first seconds): the
      // focus stays in the box, and the word completes once the chunk is here.
      if (/\S$/.test(el.value.slice(0, el.selectionStart ?? undefined))) {
        e.preventDefault();
        const typed = el.value;
        void afterLoad.load().then((m) => {
          if (m && el.value === typed) complete(m, el, e.shiftKey);
        });
        return;
      }
    }
    completion.current = null;
    if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
      e.preventDefault();
      submit();
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

  const awayMessage = away.value[p.cid];
  // Typing, replies and reactions where the server has message-tags (ngircd has not).
  const caps = connections.value[p.cid]?.info?.capabilities as Record<string, unknown> | undefined;
  if (caps?.["message-tags"]) tagsChunk.load();
  const Tags = tagsChunk.get();
  return (
    <>
      {Tags && <Tags.AboveBox k={key(p.cid, p.conv)} />}
      {toast.value && <p class="toast-line" role="status">{toast.value}</p>}
      {awayMessage !== undefined && (
        <p class="away-line" role="status">
          {t("You are away: {message}", { message: awayMessage })}{" "}
          <button type="button" class="link" onClick={() => void backFromAway()}>
            {t("I'm back")}
          </button>
        </p>
      )}
      {formEl()}
    </>
  );

  async function backFromAway() {
    await runCommand(p.cid, p.conv, "/away");
  }

  function formEl() {
    return (
      <form
        class="composer"
        onSubmit={(e) => {
          e.preventDefault();
          submit();
        }}
        onDragOver={(e) => e.preventDefault()}
        onDrop={(e) => {
          e.preventDefault();
          void upload(e.dataTransfer?.files ?? null);
        }}
      >
        {popup && PopupList && <PopupList popup={popup} choose={(i) => takePopup(popup!, i)} />}
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
          aria-busy={draftLoading}
          rows={1}
          value={text}
          placeholder={t("Message")}
          onInput={(e) => {
            const el = e.currentTarget as HTMLTextAreaElement;
            setText(el.value);
            tagsChunk.get()?.typed(p.cid, p.conv, el.value);
            setCursor(el.selectionStart ?? el.value.length);
            setChoice(null);
            completion.current = null;
          }}
          onKeyDown={onKeyDown}
          // The cursor moved without typing (arrows, Home, a click): the popup follows it.
          onKeyUp={track}
          onClick={track}
          onFocus={(e) => {
            afterLoad.load();
            setFocused(true);
            track(e);
          }}
          onBlur={() => setFocused(false)}
          aria-autocomplete="list"
          aria-controls={popup ? chunk!.POPUP_ID : undefined}
          aria-activedescendant={popup && popup.index >= 0
            ? `${chunk!.POPUP_ID}-${popup.index}`
            : undefined}
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
}
