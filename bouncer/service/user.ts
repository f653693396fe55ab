/**
 * `user status`, and for admins `user create|update|delete`: the same rules as the account
 * routes (a valid email and password, the last admin stays one, the only user stays, a new
 * password ends the old sessions and the IRC clients logged in with it, `-enabled false` suspends
 * the account as the API's `suspended` does).
 */
import { email as emailSchema } from "../../protocol/contract/fields.ts";
import { password as passwordSchema } from "../../protocol/contract/fields.ts";
import { invalid, missing } from "../../lib/errors.ts";
import { hashPassword } from "../../lib/password.ts";
import { log } from "../../lib/log.ts";
import type { UserRecord } from "../../store/users.ts";
import { passwordGeneration } from "../credentials.ts";
import { checkDeletable, checkRoles } from "../../store/user_rules.ts";
import { setSuspended } from "../../auth/suspension.ts";
import { endSessions } from "../../auth/sessions.ts";
import { deleteAccount } from "../../auth/deletion.ts";
import { boolFlag, parseArgs } from "./args.ts";
import { register, type ServiceCall, UsageError } from "./table.ts";
import { t } from "./words.ts";

function validEmail(text: string | undefined): string {
  const r = emailSchema.safeParse(text ?? "");
  if (!r.success) throw invalid(t("Not an email address."));
  return r.data;
}

function validPassword(text: string): string {
  const r = passwordSchema.safeParse(text);
  if (!r.success) throw invalid(r.error.issues[0]?.message ?? t("Not a password."));
  return r.data;
}

async function existing(call: ServiceCall, email: string): Promise<UserRecord> {
  const user = await call.deps.store.users.byEmail(validEmail(email));
  if (!user) throw missing(t("No such user."));
  return user;
}

const line = (u: UserRecord) =>
  t("{email}: {roles}", {
    email: u.email,
    roles: [u.roles.join(", ") || t("no roles"), ...u.suspended ? [t("suspended")] : []]
      .join("; "),
  });

register(
  {
    name: "user status",
    usage: "",
    description: "Shows your account; admins see every user",
    async run(call) {
      if (!call.user.roles.includes("admin")) return [line(call.user)];
      return (await call.deps.store.users.list(undefined, 1000)).map(line);
    },
  },
  {
    name: "user create",
    usage: "-username <email> -password <password> [-admin true|false]",
    description: "Adds a user",
    admin: true,
    async run(call, args) {
      const p = parseArgs(args, ["username", "password"], ["admin"]);
      if (p.positional.length) throw new UsageError(t("Give every value with its flag."));
      if (!p.flags.has("username") || !p.flags.has("password")) {
        throw new UsageError(t("-username and -password are needed."));
      }
      const email = validEmail(p.flags.get("username"));
      const password = validPassword(p.flags.get("password")!);
      const { store } = call.deps;
      if (await store.users.byEmail(email)) throw invalid(t("That email is already registered."));
      const roles = boolFlag(p, "admin") ? ["admin"] : [];
      const user = await store.users.create(email, await hashPassword(password), roles);
      log.info("user created", { uid: user.id, by: call.user.id });
      return [t("Created user {email}.", { email })];
    },
  },
  {
    name: "user update",
    usage: "<email> [-password <password>] [-admin true|false] [-enabled true|false]",
    description: "Changes a user's password or admin role, or suspends the account",
    admin: true,
    async run(call, args) {
      const p = parseArgs(args, ["password"], ["admin", "enabled"]);
      if (p.positional.length !== 1) throw new UsageError(t("Name the user by email."));
      const user = await existing(call, p.positional[0]);
      const admin = boolFlag(p, "admin");
      const newPassword = p.flags.get("password");
      // One's own, as on the account page: not with an app token or a certificate alone.
      if (newPassword !== undefined && user.id === call.user.id && !call.passwordGiven) {
        return [
          t(
            "Setting your own password needs your current one: log in with it (not an app token or a certificate), or set it on the account page.",
          ),
        ];
      }
      const enabled = boolFlag(p, "enabled");
      if (admin === undefined && newPassword === undefined && enabled === undefined) {
        throw new UsageError(t("Say what to change."));
      }
      const roles = admin === undefined
        ? undefined
        : admin
        ? [...new Set([...user.roles, "admin"])]
        : user.roles.filter((r) => r !== "admin");
      const password = newPassword === undefined ? undefined : validPassword(newPassword);
      const { store, revocations } = call.deps;
      if (roles) await checkRoles(store.users, user, roles);
      // Before the other changes: a suspension the rules refuse changes nothing.
      if (enabled !== undefined) await setSuspended(call.deps, user, !enabled, call.user);
      const updated = await store.users.update(user.id, {
        roles,
        passwordHash: password === undefined ? undefined : await hashPassword(password),
      });
      if (!updated) throw missing(t("No such user."));
      if (password !== undefined) {
        // As the account route: the old password's web sessions and IRC clients end.
        await endSessions(call.deps, user.id);
        const generation = await passwordGeneration(updated.passwordHash);
        await revocations?.revoke({ userId: user.id, kind: "password", generation });
      }
      return [t("Updated user {email}.", { email: user.email })];
    },
  },
  {
    name: "user delete",
    usage: "<email>",
    description: "Deletes a user with everything they have",
    admin: true,
    async run(call, args) {
      if (args.length !== 1) throw new UsageError(t("Name the user by email."));
      const user = await existing(call, args[0]);
      await checkDeletable(call.deps.store.users, user);
      await deleteAccount(call.deps, user, call.user);
      return [t("Deleted user {email}.", { email: user.email })];
    },
  },
);
