/** A conversation's settings: its topic, its notifications, its joins and parts, and leaving it. */
import { useState } from "preact/hooks";
import { t } from "../i18n.ts";
import { navigate } from "../router.ts";
import { socket } from "../session.ts";
import { connections, conversations, key, removeConversation } from "../state.ts";
import { stripFormatting } from "../irc_format.ts";
import { Check, Panel } from "./Field.tsx";
import { setDetached } from "../conv_prefs.ts";
import { NotifyChoice } from "./NotifyChoice.tsx";
import { TopBar } from "./ChatView.tsx";
import { connectionTitle } from "../conn_status.ts";
import { joinParts } from "../prefs.ts";
import { ownJoinParts, setOwnJoinParts } from "../settings_edit.ts";
import type { JoinParts } from "../../../protocol/client_settings.ts";
import { at } from "../base.ts";

/** The words of each way joins and parts show. */
const MODES: [JoinParts, string][] = [
  ["condense", "Collapse runs into one line"],
  ["show", "Show each one"],
  ["hide", "Hide them"],
];

/**
 * The choice of a conversation (`conv`) or of its connection (`conv` null), or none: then the
 * one above it applies, which the first option names.
 */
function JoinPartsChoice(p: { cid: string; conv: string | null; label: string; inherit: string }) {
  const id = p.conv === null ? "f-joinparts-network" : "f-joinparts-here";
  const own = ownJoinParts(p.cid, p.conv);
  return (
    <div class="field">
      <label for={id}>{p.label}</label>
      <select
        id={id}
        value={own ?? ""}
        onChange={(e) => {
          const v = (e.currentTarget as HTMLSelectElement).value;
          void setOwnJoinParts(p.cid, p.conv, v ? v as JoinParts : null);
        }}
      >
        <option value="">{p.inherit}</option>
        {MODES.map(([m, words]) => <option key={m} value={m}>{t(words)}</option>)}
      </select>
    </div>
  );
}

/** The settings of conversation `conv` on connection `cid`. */
export function ConversationSettings(p: { cid: string; conv: string }) {
  const c = conversations.value[key(p.cid, p.conv)];
  const [topic, setTopic] = useState(stripFormatting(c?.topic ?? ""));
  const [message, setMessage] = useState("");
  const isChannel = /^[#&!+]/.test(p.conv);
  const send = async (line: string) => {
    const a = await socket.request({
      method: "send",
      connection_id: p.cid,
      conversation_id: p.conv,
      message: line,
    });
    setMessage(
      a.errors ? a.errors.map((e: { message: string }) => e.message).join(" ") : t("Done."),
    );
    return !a.errors;
  };
  const back = `/chat/${encodeURIComponent(p.cid)}/${encodeURIComponent(p.conv)}`;
  return (
    <main class="page">
      <TopBar
        title={c?.name ?? p.conv}
        subtitle={connectionTitle(connections.value[p.cid], p.cid)}
      />
      <div class="page-body">
        {isChannel && (
          <Panel title={t("Topic")}>
            <form
              onSubmit={async (e) => {
                e.preventDefault();
                await send(`/topic ${topic}`);
              }}
            >
              <div class="field">
                <label for="f-topic">{t("Topic")}</label>
                <textarea
                  id="f-topic"
                  rows={2}
                  value={topic}
                  onInput={(e) => setTopic((e.currentTarget as HTMLTextAreaElement).value)}
                />
              </div>
              <div class="actions">
                <button class="primary" type="submit">{t("Set topic")}</button>
              </div>
            </form>
          </Panel>
        )}
        <Panel title={t("Notifications")}>
          <NotifyChoice cid={p.cid} conv={p.conv} />
        </Panel>
        {isChannel && (
          <Panel title={t("IRC clients")}>
            <p class="muted">
              {t(
                "A detached channel stays joined and kept here, but IRC clients attached to Parley leave it until you reattach it.",
              )}
            </p>
            <Check
              name="detached"
              label={t("Detached from IRC clients")}
              checked={!!c?.detached}
              onChange={(v) =>
                // The box goes back to the stored state; the console says why.
                void setDetached(p.cid, p.conv, v).catch((e) =>
                  console.warn("detach not saved", e)
                )}
            />
          </Panel>
        )}
        {isChannel && (
          <Panel title={t("Joins and parts")}>
            <p class="muted">{t("Joins, parts, quits and nick changes, on all your devices.")}</p>
            <JoinPartsChoice
              cid={p.cid}
              conv={p.conv}
              label={t("In this channel")}
              inherit={t("As on this network")}
            />
            <JoinPartsChoice
              cid={p.cid}
              conv={null}
              label={t("On this network")}
              inherit={t("As in your settings ({mode})", {
                mode: t(MODES.find(([m]) => m === joinParts.value)![1]),
              })}
            />
          </Panel>
        )}
        <Panel title={isChannel ? t("Leave the channel") : t("Close the conversation")}>
          <p class="muted">
            {isChannel
              ? t(
                "You stop receiving its messages and it is not rejoined. Its history stays searchable.",
              )
              : t("The conversation disappears from the sidebar.")}
          </p>
          <div class="actions">
            <button
              type="button"
              class="danger"
              onClick={async () => {
                if (await send("/part")) {
                  removeConversation(p.cid, p.conv);
                  navigate("/chat");
                }
              }}
            >
              {isChannel ? t("Leave") : t("Close")}
            </button>
            <a
              class="button"
              href={at(back)}
              onClick={(e) => {
                e.preventDefault();
                navigate(back);
              }}
            >
              {t("Back")}
            </a>
          </div>
        </Panel>
        {message && <p class="saved" role="status">{message}</p>}
      </div>
    </main>
  );
}
