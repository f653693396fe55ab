/**
 * The first run: right after the first admin registers, what every new user starts with: a
 * connection to the network and channels the admin picks, or none. The admin's own connection
 * (made at registration from the old default) follows the choice.
 */
import { useEffect, useState } from "preact/hooks";
import { effect } from "@preact/signals";
import { api, ApiFailure } from "../api.ts";
import { t } from "../i18n.ts";
import { navigate } from "../router.ts";
import { socket } from "../session.ts";
import { connections, patchConnection, removeConnection } from "../state.ts";
import { Check, Field, FormErrors, Panel, toErrors } from "./Field.tsx";
import { fail, useForm } from "../form.ts";
import type { ApiErrorItem } from "../types.ts";
import { TopBar } from "./ChatView.tsx";

interface Choice {
  give: boolean;
  server: string;
  tls: boolean;
  channels: string;
}

/** The choice as the default connection's URL shows it. */
function choiceOf(url: string, give: boolean): Choice {
  try {
    const u = new URL(url);
    const tls = u.protocol === "ircs:" || u.searchParams.get("tls") === "1" ||
      (!u.searchParams.has("tls") && u.port === "6697");
    const channels = decodeURIComponent(u.pathname.replace(/^\/+/, "")).split(/[\s,]+/)
      .filter(Boolean).join(", ");
    return { give, server: u.host, tls, channels };
  } catch {
    return { give, server: "", tls: true, channels: "" };
  }
}

/** The channels of a choice, each with its `#`. */
const channelsOf = (c: Choice) =>
  c.channels.split(/[\s,]+/).filter(Boolean).map((n) => (/^[#&!+]/.test(n) ? n : `#${n}`));

/** A connection URL for the choice's server naming `channels` as `#a,#b`. */
const urlOf = (c: Choice, channels: string[]) =>
  `irc://${c.server.trim()}/${encodeURIComponent(channels.join(","))}?tls=${c.tls ? 1 : 0}`;

/** Joins `names` on connection `cid` once it is connected (the URL names only the first). */
function joinWhenConnected(cid: string, names: string[]): void {
  if (!names.length) return;
  const stop = effect(() => {
    if (connections.value[cid]?.state !== "connected") return;
    queueMicrotask(() => stop());
    for (const name of names) {
      void socket.request({
        method: "send",
        connection_id: cid,
        conversation_id: "",
        message: `/join ${name}`,
      });
    }
  });
}

export function FirstRun() {
  const [c, setC] = useState<Choice | null>(null);
  const [errors, setErrors] = useState<ApiErrorItem[]>([]);
  useEffect(() => {
    api("getSettings").then((s) =>
      setC(choiceOf(s.default_connection ?? "", s.new_user_connection ?? true))
    )
      .catch((e) => setErrors(toErrors(e)));
  }, []);
  if (!c) return <FormErrors errors={errors} fields={[]} />;
  return (
    <main class="page">
      <TopBar title={t("Welcome to Parley")} />
      <div class="page-body">
        <Panel title={t("What new users start with")}>
          <ChoiceForm initial={c} />
        </Panel>
      </div>
    </main>
  );
}

/** Saves the choice, then replaces the admin's own connection with one made from it. */
async function apply(c: Choice): Promise<void> {
  if (c.give && !c.server.trim()) fail("server", t("Enter the server's host name."));
  const channels = channelsOf(c);
  const url = urlOf(c, channels);
  await api("updateSettings", {
    body: c.give
      ? { default_connection: url, new_user_connection: true }
      : { new_user_connection: false },
  }).catch((e) => {
    // The URL is made of the server field: its error belongs there.
    const list = toErrors(e).map((x) =>
      x.path === "/body/default_connection" ? { ...x, path: "/body/server" } : x
    );
    throw new ApiFailure(400, list);
  });
  // The admin's own connection, made from the old default at registration, follows.
  const own = Object.values(connections.value)[0];
  if (own) {
    await api("removeConnection", { params: { connection_id: own.connection_id } });
    removeConnection(own.connection_id);
  }
  if (!c.give) {
    navigate("/settings/connection/add", true);
    return;
  }
  const [first, ...more] = channels;
  const made = await api("createConnection", { body: { url: urlOf(c, first ? [first] : []) } });
  patchConnection(made.connection_id, made);
  joinWhenConnected(made.connection_id, more);
  navigate(`/chat/${encodeURIComponent(made.connection_id)}`, true);
}

/** The choice: a connection to a server and channels, or none. */
function ChoiceForm(p: { initial: Choice }) {
  const form = useForm(p.initial);
  const give = form.values.give;
  const choose = (v: boolean) => () => form.set("give")(v);
  return (
    <form onSubmit={form.onSubmit(apply)} noValidate class="form-grid">
      <p class="muted full">
        {t(
          "Every new user, you too, starts connected to this network and these channels. Pick your community's, or none.",
        )}
      </p>
      <div class="checks full" role="radiogroup" aria-label={t("What new users start with")}>
        <label class="check">
          <input type="radio" name="give" checked={give} onChange={choose(true)} />
          <span>{t("A connection to this network")}</span>
        </label>
        <label class="check">
          <input type="radio" name="give" checked={!give} onChange={choose(false)} />
          <span>{t("No connection: each user adds their own")}</span>
        </label>
      </div>
      {give && (
        <>
          <Field {...form.field("server", t("Server"))} placeholder="irc.libera.chat:6697" />
          <Field
            {...form.field("channels", t("Channels"))}
            placeholder="#community, #help"
            hint={t("Separated by commas; may be empty.")}
          />
          <div class="checks">
            <Check {...form.check("tls", t("Use TLS"))} />
          </div>
        </>
      )}
      <FormErrors {...form.rest("server", "channels")} />
      <div class="actions full">
        <button class="primary" type="submit" disabled={form.busy}>
          {t("Save and continue")}
        </button>
      </div>
    </form>
  );
}
