/** Add or edit a connection: server, TLS, nick, login, SASL, on-connect commands, wanted state. */
import { useEffect, useState } from "preact/hooks";
import { api, type Body } from "../api.ts";
import { t } from "../i18n.ts";
import { navigate } from "../router.ts";
import { connections, patchConnection, removeConnection, user } from "../state.ts";
import {
  type ConnFields,
  EMPTY_FIELDS,
  fieldsFromUrl,
  prefill,
  urlFromFields,
  validPort,
} from "../conn_url.ts";
import { connectionProblem, connectionTitle } from "../conn_status.ts";
import { privateRefusal } from "../conn_error.ts";
import { linkParts } from "../irc_link.ts";
import type { Connection } from "../types.ts";
import { Check, Field, FormErrors, Panel } from "./Field.tsx";
import { fail, useForm } from "../form.ts";
import { TopBar } from "./ChatView.tsx";

/** Fields a browser must not fill with saved logins. */
const OFF = { autocomplete: "off" } as const;

/** The port `f` connects to: its own, else TLS's or plain text's default. */
function portOf(f: ConnFields): string {
  return f.port.trim() || (f.tls ? "6697" : "6667");
}

/**
 * Whether `a` and `b` name one server: host, port and TLS. The server keeps a saved password
 * only while they stay the same (irc/connection_service.ts), so the form says so when they change.
 */
function sameServer(a: ConnFields, b: ConnFields): boolean {
  return a.host.trim().toLowerCase() === b.host.trim().toLowerCase() && portOf(a) === portOf(b) &&
    a.tls === b.tls;
}

/** What the form edits: the URL's parts and the connection's own settings. */
interface Values extends ConnFields {
  name: string;
  /** The channels to join, for a new connection. */
  conversation_id: string;
  commands: string;
  wanted: boolean;
}

/** The form's values for connection `c` (none: a new one), with `channels` to join. */
function valuesOf(c: Connection | undefined, channels: string): Values {
  return {
    ...(c ? fieldsFromUrl(c.url) : EMPTY_FIELDS),
    name: c?.name ?? "",
    conversation_id: channels,
    commands: (c?.on_connect_commands ?? []).join("\n"),
    wanted: c?.wanted_state !== "disconnected",
  };
}

/**
 * Whether a new connection's form may show: once `fill` got the default profile's URL (or none).
 * Typing into a field that the profile then fills as well mixed the two ("irc.libera.chat127.0.0.1").
 */
function useDefaultProfile(
  wanted: boolean,
  cid: string | undefined,
  fill: (url: string | undefined) => void,
): boolean {
  const [ready, setReady] = useState(!wanted);
  useEffect(() => {
    if (!wanted) return;
    let live = true;
    const show = () => live && setReady(true);
    // A slow server must not keep the form away: after 3 s it is shown unfilled.
    const slow = setTimeout(show, 3000);
    api("listConnectionProfiles")
      .then((r) => r.profiles?.find((x) => x.is_default))
      // why: no profile to start from is the same form as no default profile; the form shows
      .catch(() => undefined)
      .then((profile) => {
        if (!live) return;
        fill(profile?.url);
        show();
      });
    return () => {
      live = false;
      clearTimeout(slow);
    };
  }, [cid]);
  return ready;
}

/**
 * The URL as stored now, read when the form opens: it moves without this page's doing (a /nick
 * names the new nick in it; an IRC client's BouncerServ or another device edits it). Fields the
 * user has not changed yet take the stored values.
 */
function useStoredUrl(
  cid: string | undefined,
  replace: (next: (now: Values) => Values) => void,
): void {
  useEffect(() => {
    if (!cid) return;
    let live = true;
    api("listConnections")
      .then((r) => {
        const known = connections.value[cid];
        const fresh = r.connections?.find((c) => c.connection_id === cid);
        if (!live || !known || !fresh || fresh.url === known.url) return;
        const [was, now] = [fieldsFromUrl(known.url), fieldsFromUrl(fresh.url)];
        patchConnection(cid, { url: fresh.url });
        replace((f) => {
          const out = { ...f };
          for (const k of Object.keys(now) as (keyof ConnFields)[]) {
            if (f[k] === was[k]) (out as Record<string, unknown>)[k] = now[k];
          }
          return out;
        });
      })
      // why: unread, the form keeps what this page knew; saving still works
      .catch(() => {});
    return () => {
      live = false;
    };
  }, [cid]);
}

/** A saved connection's state and, if any, what keeps it from connecting. */
function LiveState(p: { c: Connection }) {
  const problem = connectionProblem(p.c.connection_id);
  return (
    <p class="live-state" role="status">
      <span class={"dot " + (p.c.state ?? "disconnected")} aria-hidden="true" />
      {t("State")}: <strong>{t(p.c.state ?? "disconnected")}</strong>
      {problem ? ` · ${problem}` : ""}
    </p>
  );
}

/** The connection form; `cid` undefined adds a new connection, from an irc:// link's `uri` if given. */
export function ConnectionForm(p: { cid?: string; uri?: string }) {
  const existing = p.cid ? connections.value[p.cid] : undefined;
  const link = !existing && p.uri ? linkParts(p.uri) : undefined;
  const form = useForm(valuesOf(existing, link?.conversation ?? ""));
  const { values: f, set, errors, busy, run } = form;
  // The connection's client certificate, for services' SASL EXTERNAL (irc/certificate.ts).
  const certificate = existing?.info?.certificate as { fingerprint?: unknown } | undefined;
  const fingerprint = typeof certificate?.fingerprint === "string" ? certificate.fingerprint : "";
  useEffect(() => {
    if (existing) form.replace(valuesOf(existing, ""));
  }, [p.cid, !!existing]);
  useStoredUrl(p.cid, form.replace);
  const ready = useDefaultProfile(
    !existing,
    p.cid,
    (url) =>
      form.replace((now) => ({
        ...now,
        ...prefill(now, link?.url ?? url, user.value?.email ?? ""),
      })),
  );
  // Another server, port or TLS setting does not get the saved password: it must be typed again.
  const moved = !!existing && !sameServer(f, fieldsFromUrl(existing.url));
  // A refused URL (a private address, a forced server) is told above the button just pressed,
  // not beside the host field, which may be off-screen by then; the message names the host.
  const shown = errors.map((e) =>
    e.path === "/body/url" ? { ...e, message: privateRefusal(e.message) ?? e.message } : e
  );

  const submit = form.onSubmit(async (f) => {
    if (!f.host.trim()) fail("host", t("Enter the server's host name."));
    if (!validPort(f.port)) fail("port", t("The port is a number from 1 to 65535."));
    const body: Body<"updateConnection"> & Partial<Body<"createConnection">> = {
      on_connect_commands: f.commands.split("\n").map((c) => c.trim()).filter(Boolean),
      wanted_state: f.wanted ? "connected" : "disconnected",
    };
    const url = urlFromFields(f);
    const urlChanged = !existing || url !== urlFromFields(fieldsFromUrl(existing.url)) ||
      f.password;
    if (urlChanged) body.url = url;
    // Several channels, separated by spaces or commas: the first is the connection's own
    // (Convos's conversation_id), the rest are joined too.
    const [first, ...more] = f.conversation_id.split(/[\s,]+/).filter(Boolean);
    if (!existing && first) body.conversation_id = first;
    if (!existing && more.length) body.join = more;
    // Empty keeps the host's short name (a new connection) or the current name.
    const name = f.name.trim();
    if (name && name !== existing?.name) body.name = name;
    const c = existing
      ? await api("updateConnection", {
        params: { connection_id: existing.connection_id },
        body,
      })
      : await api("createConnection", { body: { ...body, url } });
    // The socket's state events may have overtaken this answer: they are the fresher truth.
    const known = connections.value[c.connection_id];
    patchConnection(
      c.connection_id,
      known?.state ? { ...c, state: known.state, info: known.info } : c,
    );
    navigate(`/chat/${encodeURIComponent(c.connection_id)}`);
  });

  const remove = async () => {
    if (!existing || !confirm(t("Delete this connection and all its messages?"))) return;
    await run(async () => {
      await api("removeConnection", { params: { connection_id: existing.connection_id } });
      removeConnection(existing.connection_id);
      navigate("/chat");
    });
  };

  return (
    <main class="page">
      <TopBar title={existing ? t("Edit connection") : t("Add connection")} />
      <div class="page-body">
        <Panel
          title={existing
            ? connectionTitle(existing, existing.connection_id)
            : t("Connect to an IRC server")}
        >
          {existing && <LiveState c={existing} />}
          {!ready && <p class="loading" role="status">{t("Loading…")}</p>}
          <form onSubmit={submit} noValidate class="form-grid" hidden={!ready}>
            <Field
              {...form.field("host", t("Host"))}
              placeholder="irc.libera.chat"
              required
              autofocus={!existing}
            />
            <Field
              {...form.field("port", t("Port"))}
              type="number"
              inputMode="numeric"
              placeholder={f.tls ? "6697" : "6667"}
            />
            <div class="checks">
              <Check {...form.check("tls", t("Use TLS"))} />
              {f.tls && (
                <Check
                  {...form.check("tlsVerify", t("Verify the certificate"))}
                  name="tls_verify"
                />
              )}
              {moved && (
                <p class="hint" role="status">
                  {t(
                    "The saved password is only sent to the server, port and TLS setting it was saved for. Enter it again below if this server needs one.",
                  )}
                </p>
              )}
            </div>
            <Field
              {...form.field("name", t("Connection name"), OFF)}
              hint={t("Shown in the sidebar. Empty: the server's short name.")}
            />
            <Field
              {...form.field("nick", t("Nick"), OFF)}
            />
            <Field
              {...form.field("username", t("User name"), OFF)}
            />
            <Field
              {...form.field("realname", t("Real name"), OFF)}
            />
            <Field
              {...form.field("login", t("Login"), OFF)}
              hint={t("Account name for SASL or the server password.")}
            />
            <Field
              {...form.field("password", t("Password"))}
              type="password"
              autocomplete="new-password"
              hint={moved
                ? t("Empty: no password for the new server.")
                : existing
                ? t("Leave empty to keep the current password.")
                : undefined}
            />
            <div class="field">
              <label for="f-sasl">{t("SASL")}</label>
              <select
                id="f-sasl"
                value={f.sasl}
                onChange={(e) =>
                  set("sasl")((e.currentTarget as HTMLSelectElement).value as Values["sasl"])}
              >
                <option value="">{t("None")}</option>
                <option value="plain">PLAIN</option>
                <option value="external">EXTERNAL</option>
              </select>
            </div>
            {fingerprint && (
              <Field
                label={t("Certificate fingerprint")}
                name="fingerprint"
                value={fingerprint}
                onInput={() => {}}
                readOnly
                autocomplete="off"
                hint={t(
                  "Parley presents this connection's own certificate over TLS. Register its fingerprint with the network's services (NickServ CERT ADD) to log in with SASL EXTERNAL.",
                )}
              />
            )}
            {!existing && (
              <Field
                {...form.field("conversation_id", t("Channels to join"))}
                placeholder="#parley #help"
                hint={t("Separate several with spaces or commas.")}
              />
            )}
            <div class="field full">
              <label for="f-commands">{t("On-connect commands")}</label>
              <textarea
                id="f-commands"
                rows={3}
                value={f.commands}
                onInput={(e) => set("commands")((e.currentTarget as HTMLTextAreaElement).value)}
                placeholder="/msg NickServ identify …"
              />
              <p class="hint">{t("One command per line, run after connecting.")}</p>
            </div>
            <div class="checks full">
              <Check {...form.check("wanted", t("Stay connected"))} name="wanted_state" />
            </div>
            <FormErrors {...form.rest("on_connect_commands", "wanted_state")} errors={shown} />
            <div class="actions full">
              <button class="primary" type="submit" disabled={busy}>
                {existing ? t("Save") : t("Connect")}
              </button>
              {existing && (
                <button type="button" class="danger" onClick={remove}>
                  {t("Delete connection")}
                </button>
              )}
            </div>
          </form>
        </Panel>
      </div>
    </main>
  );
}
