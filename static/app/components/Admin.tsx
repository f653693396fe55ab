/** Administration: server settings with disk usage, users (roles, delete, invites), profiles. */
import { useEffect, useState } from "preact/hooks";
import { api, type Reply } from "../api.ts";
import { t } from "../i18n.ts";
import { linkClick } from "../router.ts";
import { user as me } from "../state.ts";
import type { User } from "../types.ts";
import { Check, Field, FormErrors, Panel, Saved, toErrors, useFormAction } from "./Field.tsx";
import { TopBar } from "./ChatView.tsx";
import { formatSize } from "../util.ts";

type Tab = "server" | "users" | "profiles";

function Tabs(p: { tab: Tab }) {
  const tabs: [Tab, string][] = [
    ["server", t("Server")],
    ["users", t("Users")],
    ["profiles", t("Connection profiles")],
  ];
  return (
    <nav class="tabs" aria-label={t("Administration")}>
      {tabs.map(([id, label]) => (
        <a
          key={id}
          href={`/settings/${id}`}
          onClick={linkClick}
          aria-current={p.tab === id ? "page" : undefined}
        >
          {label}
        </a>
      ))}
    </nav>
  );
}

type Settings = Reply<"getSettings">;

function ServerSettings() {
  const [s, setS] = useState<Settings | null>(null);
  const { errors, setErrors, run } = useFormAction();
  const [saved, setSaved] = useState(false);
  useEffect(() => {
    api("getSettings").then(setS).catch((e) => setErrors(toErrors(e)));
  }, []);
  if (!s) return <FormErrors errors={errors} fields={[]} />;
  const set = (k: keyof Settings) => (v: string | boolean) => setS({ ...s, [k]: v });
  const save = (e: Event) => {
    e.preventDefault();
    setSaved(false);
    const { disk_usage: _d, message_retention_locked: locked, ...body } = s;
    // Set by the operator, the retention is not the admin's to send.
    if (locked) delete body.message_retention;
    return run(async () => {
      setS(await api("updateSettings", { body }));
      setSaved(true);
    });
  };
  const d = s.disk_usage &&
    { blocks_used: 0, blocks_total: 0, blocks_free: 0, block_size: 0, ...s.disk_usage };
  const used = d && d.blocks_total ? d.blocks_used / d.blocks_total : 0;
  return (
    <>
      <Panel title={t("Server settings")}>
        <form onSubmit={save} noValidate>
          <Field
            label={t("Organization name")}
            name="organization_name"
            value={s.organization_name ?? ""}
            onInput={set("organization_name")}
            errors={errors}
          />
          <Field
            label={t("Organization URL")}
            name="organization_url"
            value={s.organization_url ?? ""}
            onInput={set("organization_url")}
            errors={errors}
          />
          <Field
            label={t("Contact")}
            name="contact"
            value={s.contact ?? ""}
            onInput={set("contact")}
            errors={errors}
          />
          <Field
            label={t("Default connection")}
            name="default_connection"
            value={s.default_connection ?? ""}
            onInput={set("default_connection")}
            errors={errors}
            placeholder="irc://irc.libera.chat:6697"
          />
          <Field
            label={t("Video service")}
            name="video_service"
            value={s.video_service ?? ""}
            onInput={set("video_service")}
            errors={errors}
          />
          <Field
            label={t("Message retention")}
            name="message_retention"
            value={s.message_retention ?? ""}
            onInput={set("message_retention")}
            errors={errors}
            placeholder="365d"
            readOnly={!!s.message_retention_locked}
            hint={s.message_retention_locked
              ? t("Set by the operator (PARLEY_MESSAGE_RETENTION).")
              : t(
                "Messages older than this are deleted: 365d, 12w or 1y. Empty or 0 keeps everything.",
              )}
          />
          <div class="checks">
            <Check
              label={t("Give every new user the default connection")}
              name="new_user_connection"
              checked={s.new_user_connection !== false}
              onChange={set("new_user_connection")}
            />
            <Check
              label={t("Anyone may register")}
              name="open_to_public"
              checked={!!s.open_to_public}
              onChange={set("open_to_public")}
            />
            <Check
              label={t("Users may only use the default connection")}
              name="forced_connection"
              checked={!!s.forced_connection}
              onChange={set("forced_connection")}
            />
            <Check
              label={t("Users may connect to private addresses")}
              name="irc_allow_private"
              checked={!!s.irc_allow_private}
              onChange={set("irc_allow_private")}
            />
            <p class="muted">
              {t(
                "Loopback, LAN and link-local IRC servers: admins and the default connection always may; PARLEY_IRC_ALLOW_PRIVATE=1 allows it for everyone too.",
              )}
            </p>
          </div>
          <FormErrors
            errors={errors}
            fields={[
              "organization_name",
              "organization_url",
              "contact",
              "default_connection",
              "video_service",
              "message_retention",
            ]}
          />
          <div class="actions">
            <button class="primary" type="submit">{t("Save")}</button>
            <Saved show={saved} />
          </div>
        </form>
      </Panel>
      {d && (
        <Panel title={t("Disk usage")}>
          <div
            class="meter"
            role="meter"
            aria-valuemin={0}
            aria-valuemax={100}
            aria-valuenow={Math.round(used * 100)}
            aria-label={t("Disk usage")}
          >
            <span style={{ width: `${Math.round(used * 100)}%` }} />
          </div>
          <p class="muted">
            {t("{used} used of {total} ({free} free)", {
              used: formatSize(d.blocks_used * d.block_size),
              total: formatSize(d.blocks_total * d.block_size),
              free: formatSize(d.blocks_free * d.block_size),
            })}
          </p>
        </Panel>
      )}
    </>
  );
}

function Users() {
  const [users, setUsers] = useState<User[]>([]);
  const [email, setEmail] = useState("");
  const [invite, setInvite] = useState<
    { url: string; existing?: boolean; expires?: string } | null
  >(null);
  const { errors, setErrors, run } = useFormAction();
  const load = () =>
    api("getUsers").then((r) => setUsers(r.users ?? []))
      .catch((e) => setErrors(toErrors(e)));
  useEffect(() => {
    void load();
  }, []);
  const makeInvite = (address: string) =>
    run(async () => setInvite(await api("inviteUser", { params: { email: address } })));
  const toggleAdmin = (u: User) => {
    const roles: User["roles"] = u.roles?.includes("admin")
      ? (u.roles ?? []).filter((r) => r !== "admin")
      : [...(u.roles ?? []), "admin"];
    return run(async () => {
      await api("updateUser", { params: { email: u.email }, body: { roles } });
      await load();
    });
  };
  const remove = async (u: User) => {
    if (!confirm(t("Delete {name} and all their data?", { name: u.email }))) return;
    await run(async () => {
      await api("deleteUser", { params: { email: u.email } });
      await load();
    });
  };
  return (
    <>
      <Panel title={t("Invite someone")}>
        <form
          onSubmit={(e) => {
            e.preventDefault();
            void makeInvite(email);
          }}
          noValidate
        >
          <Field
            label={t("Email")}
            name="email"
            type="email"
            value={email}
            onInput={setEmail}
            errors={errors}
          />
          <div class="actions">
            <button class="primary" type="submit">{t("Create invite link")}</button>
          </div>
        </form>
        {invite && (
          <div class="invite">
            <label for="invite-url">
              {invite.existing ? t("Password reset link") : t("Invite link")}
            </label>
            <div class="row">
              <input
                id="invite-url"
                readOnly
                value={invite.url}
                onFocus={(e) => (e.currentTarget as HTMLInputElement).select()}
              />
              <button type="button" onClick={() => navigator.clipboard?.writeText(invite.url)}>
                {t("Copy")}
              </button>
            </div>
            {invite.expires && (
              <p class="hint">
                {t("Valid until {time}", { time: new Date(invite.expires).toLocaleString() })}
              </p>
            )}
          </div>
        )}
      </Panel>
      <Panel title={t("Users")}>
        <FormErrors errors={errors} fields={["email"]} />
        <ul class="user-list">
          {users.map((u) => (
            <li key={u.email}>
              <span class="who">
                <strong>{u.email}</strong>
                <span class="muted">{(u.roles ?? []).join(", ") || t("user")}</span>
              </span>
              <span class="buttons">
                <button type="button" class="small" onClick={() => makeInvite(u.email)}>
                  {t("Reset link")}
                </button>
                {u.email !== me.value?.email && (
                  <>
                    <button type="button" class="small" onClick={() => toggleAdmin(u)}>
                      {u.roles?.includes("admin") ? t("Remove admin") : t("Make admin")}
                    </button>
                    <button type="button" class="small danger" onClick={() => remove(u)}>
                      {t("Delete")}
                    </button>
                  </>
                )}
              </span>
            </li>
          ))}
        </ul>
      </Panel>
    </>
  );
}

interface Profile {
  id?: string;
  url: string;
  is_default?: boolean;
  is_forced?: boolean;
  max_bulk_message_size?: number;
  max_message_length?: number;
}

function Profiles() {
  const [list, setList] = useState<Profile[]>([]);
  const [url, setUrl] = useState("");
  const [isDefault, setDefault] = useState(false);
  const { errors, setErrors, run } = useFormAction();
  const load = () =>
    api("listConnectionProfiles").then((r) => setList(r.profiles ?? []))
      .catch((e) => setErrors(toErrors(e)));
  useEffect(() => {
    void load();
  }, []);
  return (
    <>
      <Panel title={t("Connection profiles")}>
        {!list.length && <p class="muted">{t("No profiles yet.")}</p>}
        <ul class="user-list">
          {list.map((p) => (
            <li key={p.id ?? p.url}>
              <span class="who">
                <strong>{p.url}</strong>
                <span class="muted">
                  {[
                    p.is_default && t("default"),
                    p.is_forced && t("forced"),
                    p.max_message_length && `${p.max_message_length} ${t("characters")}`,
                  ].filter(Boolean).join(" · ")}
                </span>
              </span>
              <span class="buttons">
                <button
                  type="button"
                  class="small danger"
                  onClick={async () => {
                    await api("removeConnectionProfile", { params: { id: p.id ?? "" } }).catch((
                      e,
                    ) => setErrors(toErrors(e)));
                    await load();
                  }}
                >
                  {t("Delete")}
                </button>
              </span>
            </li>
          ))}
        </ul>
      </Panel>
      <Panel title={t("Add or change a profile")}>
        <form
          onSubmit={(e) => {
            e.preventDefault();
            return run(async () => {
              await api("saveConnectionProfile", { body: { url, is_default: isDefault } });
              setUrl("");
              await load();
            });
          }}
          noValidate
        >
          <Field
            label={t("Server URL")}
            name="url"
            value={url}
            onInput={setUrl}
            errors={errors}
            placeholder="irc://irc.libera.chat:6697"
          />
          <div class="checks">
            <Check
              label={t("Default for new connections")}
              name="is_default"
              checked={isDefault}
              onChange={setDefault}
            />
          </div>
          <FormErrors errors={errors} fields={["url"]} />
          <div class="actions">
            <button class="primary" type="submit">{t("Save profile")}</button>
          </div>
        </form>
      </Panel>
    </>
  );
}

/** The administration screen with its three tabs. */
export function Admin(p: { tab: Tab }) {
  return (
    <main class="page">
      <TopBar title={t("Administration")} />
      <div class="page-body">
        <Tabs tab={p.tab} />
        {p.tab === "server" && <ServerSettings />}
        {p.tab === "users" && <Users />}
        {p.tab === "profiles" && <Profiles />}
      </div>
    </main>
  );
}
