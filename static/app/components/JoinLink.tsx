/** Where an irc:// link to a conversation the user is not in leads: join it, or go back. */
import { useEffect, useState } from "preact/hooks";
import { t } from "../i18n.ts";
import { chatPath, navigate } from "../router.ts";
import { socket } from "../session.ts";
import { connections, conversations, key } from "../state.ts";
import { Panel } from "./Field.tsx";
import { TopBar } from "./ChatView.tsx";

/** Offers to join `conv` on connection `cid` (a link's conversation). */
export function JoinLink(p: { cid: string; conv: string }) {
  const [error, setError] = useState("");
  const [asked, setAsked] = useState(false);
  const name = connections.value[p.cid]?.name ?? p.cid;
  const conv = p.conv.toLowerCase();
  // The conversation opens once the server has it (its join arrived), not before.
  const there = !!conversations.value[key(p.cid, conv)];
  useEffect(() => {
    if (asked && there) navigate(chatPath(p.cid, conv), true);
  }, [asked, there]);
  const join = async () => {
    const a = await socket.request({
      method: "send",
      connection_id: p.cid,
      conversation_id: "",
      message: `/join ${p.conv}`,
    });
    if (a.errors) setError(a.errors.map((e: { message: string }) => e.message).join(" "));
    else setAsked(true);
  };
  return (
    <main class="page">
      <TopBar title={t("Join a conversation")} subtitle={name} />
      <div class="page-body">
        <Panel title={p.conv || name}>
          <p>
            {t("Join {conversation} on {connection}?", { conversation: p.conv, connection: name })}
          </p>
          {error && <p class="form-error" role="alert">{error}</p>}
          <div class="actions">
            <button class="primary" type="button" disabled={!p.conv} onClick={join}>
              {t("Join")}
            </button>
          </div>
        </Panel>
      </div>
    </main>
  );
}
