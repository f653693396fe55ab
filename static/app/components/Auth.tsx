/** The screens that get a user in: login, registration (first user, invite, password reset). */
import { api, ApiFailure } from "../api.ts";
import { t } from "../i18n.ts";
import { linkClick, navigate, route } from "../router.ts";
import { loggedIn, refusal } from "../session.ts";
import { connections } from "../state.ts";
import { Field, FormErrors } from "./Field.tsx";
import { useForm } from "../form.ts";
import { Logo } from "./Logo.tsx";
import { at } from "../base.ts";

/** The email and password fields both screens share. */
const EMAIL = { type: "email", autocomplete: "username", required: true } as const;
const PASSWORD = { type: "password", required: true } as const;

/** The login form. */
export function Login() {
  const form = useForm({ email: "", password: "" });
  const submit = form.onSubmit(async (body) => {
    await loggedIn(await api("loginUser", { body }));
    navigate("/chat", true);
  });
  return (
    <main class="auth">
      <form class="card" onSubmit={submit} noValidate>
        <Logo />
        <h1>{t("Log in")}</h1>
        {refusal.value && (
          <div class="form-error" role="alert">
            <p>{refusal.value}</p>
          </div>
        )}
        <Field {...form.field("email", t("Email"), EMAIL)} autofocus />
        <Field
          {...form.field("password", t("Password"), PASSWORD)}
          autocomplete="current-password"
        />
        <FormErrors {...form.rest()} />
        <button class="primary" type="submit" disabled={form.busy}>{t("Log in")}</button>
        <p class="muted">
          {t("No account yet?")} <a href={at("/register")} onClick={linkClick}>{t("Create one")}</a>
        </p>
      </form>
    </main>
  );
}

/**
 * The server answers registration in Convos's words (its API is kept); a person reads Parley's:
 * a used or old invite link, or registration that is closed.
 */
function ownWords(e: unknown): unknown {
  if (!(e instanceof ApiFailure)) return e;
  return new ApiFailure(
    e.status,
    e.errors.map((x) =>
      /^Invalid token\b/.test(x.message)
        ? {
          ...x,
          message: t(
            "This invite link was used already or is too old. Ask your administrator for a new one.",
          ),
        }
        : /registration is not open/i.test(x.message)
        ? { ...x, message: t("Registration is closed: ask an administrator for an invite link.") }
        : x
    ),
  );
}

/** Registration: with an invite link (new user or password reset) or without (first user). */
export function Register() {
  const params = new URLSearchParams(route.value.split("?")[1] ?? "");
  const invite = params.get("token")
    ? { exp: params.get("exp") ?? "", token: params.get("token")! }
    : null;
  const form = useForm({ email: params.get("email") ?? "", password: "" });
  const submit = form.onSubmit(async (body) => {
    const u = await api("registerUser", { body: { ...body, ...(invite ?? {}) } })
      .catch((e) => {
        throw ownWords(e);
      });
    await loggedIn(u);
    // The first admin who got the default connection chooses what new users start with.
    const first = u.roles?.includes("admin") && !invite;
    const given = Object.keys(connections.value).length > 0;
    navigate(
      first ? (given ? "/settings/first-run" : "/settings/connection/add") : "/chat",
      true,
    );
  });
  return (
    <main class="auth">
      <form class="card" onSubmit={submit} noValidate>
        <Logo />
        {invite && <p class="invited">{t("You are invited to join Parley.")}</p>}
        <h1>{invite ? t("Choose your password") : t("Create an account")}</h1>
        <p class="muted">
          {invite
            ? t(
              "Choose a password for the account below to start chatting. An account that exists already keeps its data.",
            )
            : t(
              "The first account becomes the administrator. Later accounts need an invite link unless registration is open.",
            )}
        </p>
        <Field
          {...form.field("email", t("Email"), EMAIL)}
          readOnly={!!invite}
          autofocus={!invite}
        />
        <Field
          {...form.field("password", t("Password"), PASSWORD)}
          autocomplete="new-password"
          hint={t("At least 10 characters.")}
          autofocus={!!invite}
        />
        <FormErrors {...form.rest()} />
        <button class="primary" type="submit" disabled={form.busy}>
          {invite ? t("Save password") : t("Create account")}
        </button>
        <p class="muted">
          {t("Already registered?")} <a href={at("/login")} onClick={linkClick}>{t("Log in")}</a>
        </p>
      </form>
    </main>
  );
}
