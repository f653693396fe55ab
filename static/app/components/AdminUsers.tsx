/** The users of this server: invite and password reset links, admin role, suspension, deletion. */
import { useEffect, useState } from "preact/hooks";
import { api } from "../api.ts";
import { t } from "../i18n.ts";
import { user as me } from "../state.ts";
import type { User } from "../types.ts";
import type { RequestBody } from "../../../protocol/contract/types.ts";
import { useForm } from "../form.ts";
import { Field, FormErrors, Panel, toErrors } from "./Field.tsx";

export function Users() {
  const [users, setUsers] = useState<User[]>([]);
  const form = useForm({ email: "" });
  const { setErrors, run } = form;
  const [invite, setInvite] = useState<
    { url: string; existing?: boolean; expires?: string } | null
  >(null);
  const load = () =>
    api("getUsers").then((r) => setUsers(r.users ?? []))
      .catch((e) => setErrors(toErrors(e)));
  useEffect(() => {
    void load();
  }, []);
  const getInvite = async (address: string) =>
    setInvite(await api("inviteUser", { params: { email: address } }));
  /** Changes a user, then shows the list as it is now. */
  const update = (u: User, body: RequestBody<"updateUser">) =>
    run(async () => {
      await api("updateUser", { params: { email: u.email }, body });
      await load();
    });
  const toggleAdmin = (u: User) =>
    update(u, {
      roles: u.roles?.includes("admin")
        ? (u.roles ?? []).filter((r) => r !== "admin")
        : [...(u.roles ?? []), "admin"],
    });
  const suspend = async (u: User) => {
    const suspended = !u.suspended;
    if (
      suspended && !confirm(
        t(
          "Suspend {name}? They are logged out, their IRC connections stop, and nobody can log in to the account until you end the suspension.",
          { name: u.email },
        ),
      )
    ) return;
    await update(u, { suspended });
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
        <form onSubmit={form.onSubmit((v) => getInvite(v.email))} noValidate>
          <Field {...form.field("email", t("Email"))} type="email" />
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
        <FormErrors {...form.rest()} />
        <ul class="user-list">
          {users.map((u) => (
            <li key={u.email}>
              <span class="who">
                <strong>{u.email}</strong>
                <span class="muted">
                  {[(u.roles ?? []).join(", ") || t("user"), ...u.suspended ? [t("suspended")] : []]
                    .join(" · ")}
                </span>
              </span>
              <span class="buttons">
                <button type="button" class="small" onClick={() => run(() => getInvite(u.email))}>
                  {t("Reset link")}
                </button>
                {u.email !== me.value?.email && (
                  <>
                    <button type="button" class="small" onClick={() => toggleAdmin(u)}>
                      {u.roles?.includes("admin") ? t("Remove admin") : t("Make admin")}
                    </button>
                    <button type="button" class="small" onClick={() => suspend(u)}>
                      {u.suspended ? t("End suspension") : t("Suspend")}
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
