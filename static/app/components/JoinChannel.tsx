/**
 * "Join a channel" on one connection: a modal dialog where the user types a channel's name, or
 * searches the server's channel list (`/list`) and picks one. Loaded the first time it opens.
 */
import { useEffect, useRef, useState } from "preact/hooks";
import { createPortal } from "preact/compat";
import { t } from "../i18n.ts";
import { socket } from "../session.ts";
import { joinChannel } from "../join.ts";
import { drawerOpen } from "../state.ts";
import { MessageText } from "./MessageText.tsx";

interface Listed {
  name: string;
  users: number;
  topic: string;
}

/** The server's answer to one search: what it listed, what matched, what came back. */
interface Found {
  channels: Listed[];
  total: number;
  matched: number;
  done: boolean;
}

/** Rows drawn at once: the answer holds up to 1,000, typing narrows them further. */
const ROWS = 100;

/** The name typed, with the `#` a bare word needs. */
const channelName = (typed: string) => {
  const name = typed.trim();
  return name && !/^[#&!+]/.test(name) ? "#" + name : name;
};

export function JoinChannel(p: { cid: string; network: string; onClose: () => void }) {
  const ref = useRef<HTMLDialogElement>(null);
  const [name, setName] = useState("");
  const [error, setError] = useState("");
  const [busy, setBusy] = useState(false);
  const [searching, setSearching] = useState(false);
  const [found, setFound] = useState<Found | null>(null);
  useEffect(() => {
    if (!ref.current?.open) ref.current?.showModal();
  }, []);

  const join = async (channel: string) => {
    if (!channel) return;
    setBusy(true);
    setError("");
    const refused = await joinChannel(p.cid, channel);
    setBusy(false);
    if (refused) return setError(refused);
    drawerOpen.value = false; // on a phone, the channel joined shows at once
    ref.current?.close();
  };

  const search = async () => {
    setSearching(true);
    setError("");
    // The server filters the whole list by name; a bare `#` or nothing asks for all of it.
    const text = name.trim().replace(/^[#&!+]+/, "").toLowerCase();
    const answer = await socket.request({
      method: "send",
      connection_id: p.cid,
      conversation_id: "",
      message: text ? `/list /${text}/` : "/list",
    });
    setSearching(false);
    if (answer.errors) return setError(answer.errors.map((e) => e.message).join(" "));
    const channels = (answer.channels ?? []).map((c) => ({
      name: String(c.name),
      users: Number(c.users) || 0,
      topic: String(c.topic ?? ""),
    }));
    setFound({
      channels,
      total: Number(answer.n_conversations) || channels.length,
      matched: Number(answer.n_matched ?? channels.length),
      done: answer.done !== false,
    });
  };

  // Typing on after a search narrows what it found, without asking the server again.
  const narrow = name.trim().replace(/^[#&!+]+/, "").toLowerCase();
  const rows = (found?.channels ?? []).filter((c) => c.name.toLowerCase().includes(narrow));

  // Drawn under <body>: the control that opens it sits in a connection's heading.
  return createPortal(
    <dialog
      ref={ref}
      class="join-dialog"
      aria-labelledby="join-dialog-title"
      onClose={p.onClose}
    >
      <form
        noValidate
        onSubmit={(e) => {
          e.preventDefault();
          void join(channelName(name));
        }}
      >
        <h2 id="join-dialog-title">{t("Join a channel on {network}", { network: p.network })}</h2>
        <div class="field">
          <label for="join-channel-name">{t("Channel")}</label>
          <input
            id="join-channel-name"
            value={name}
            placeholder="#parley"
            autoComplete="off"
            autofocus
            onInput={(e) => setName((e.currentTarget as HTMLInputElement).value)}
          />
        </div>
        {error && <p class="error" role="alert">{error}</p>}
        <div class="actions">
          <button class="primary" type="submit" disabled={busy || !name.trim()}>
            {t("Join")}
          </button>
          <button type="button" disabled={searching} onClick={() => void search()}>
            {t("Search the server's channels")}
          </button>
          <button type="button" onClick={() => ref.current?.close()}>{t("Cancel")}</button>
        </div>
      </form>
      {searching && <p class="hint" role="status">{t("Asking the server for its channels…")}</p>}
      {found && !searching && (
        <>
          <p class="hint" role="status">
            {found.matched > found.channels.length
              ? t("The {shown} most populated of {matched} matching channels ({total} listed).", {
                shown: found.channels.length.toLocaleString(),
                matched: found.matched.toLocaleString(),
                total: found.total.toLocaleString(),
              })
              : t("{matched} matching channels ({total} listed).", {
                matched: found.channels.length.toLocaleString(),
                total: found.total.toLocaleString(),
              })}
            {!found.done && " " + t("The server's list did not end in time: part of it is shown.")}
          </p>
          {rows.length > 0 && (
            <ul class="join-results" aria-label={t("Channels found")}>
              {rows.slice(0, ROWS).map((c) => (
                <li key={c.name}>
                  <button
                    type="button"
                    class="join-link"
                    disabled={busy}
                    onClick={() => void join(c.name)}
                  >
                    <span class="name">{c.name}</span>
                    <span class="users">
                      {c.users === 1 ? t("1 user") : t("{n} users", { n: c.users })}
                    </span>
                  </button>
                  {c.topic && (
                    <span class="topic">
                      <MessageText text={c.topic} />
                    </span>
                  )}
                </li>
              ))}
            </ul>
          )}
          {rows.length > ROWS && (
            <p class="hint">
              {t("{n} more: type more of the name to narrow the list.", { n: rows.length - ROWS })}
            </p>
          )}
        </>
      )}
    </dialog>,
    document.body,
  );
}
