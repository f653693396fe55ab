/**
 * Who an attaching client is: its username `EMAIL/NETWORK[@CLIENT]` (NETWORK the connection_id,
 * CLIENT a free name that keeps its own place in history) and its password: the Parley password or
 * one of the user's app tokens, checked with the same login throttle as the web's (a failure here
 * counts there too). Or, with SASL EXTERNAL, a TLS client certificate the user registered: its
 * owner is who logs in, and the username (or the authorization identity) still names NETWORK and
 * CLIENT.
 */
import { createHash } from "node:crypto";
import type { DirectoryLogin } from "../auth/ldap.ts";
import type { LoginThrottle } from "../http/throttle.ts";
import { verifyPassword } from "../lib/password.ts";
import { appTokenHash, looksLikeAppToken } from "../lib/app_token.ts";
import type { ConnectionRecord } from "../store/connections.ts";
import type { Store } from "../store/mod.ts";
import type { UserRecord } from "../store/users.ts";
import { type Credential, passwordGeneration } from "./credentials.ts";

/** The parts of a username. */
export interface Identity {
  email: string;
  /** The connection_id; "" when the client did not name one. */
  network: string;
  /** The client's name ("" when none). */
  client: string;
}

const CLIENT_NAME = /^[A-Za-z0-9_.-]{1,32}$/;

/**
 * Splits `EMAIL/NETWORK[@CLIENT]`, or `EMAIL[@CLIENT]` without a network (an email has one `@`:
 * a second begins the client's name); undefined when it cannot be one.
 *
 * @internal test seam
 */
export function parseIdentity(text: string): Identity | undefined {
  if (text.length > 320) return undefined;
  const slash = text.indexOf("/");
  const email = slash < 0 ? text : text.slice(0, slash);
  if (!email.includes("@")) return undefined;
  if (slash < 0) {
    const at = email.lastIndexOf("@");
    if (email.indexOf("@") === at) return { email, network: "", client: "" };
    const client = email.slice(at + 1);
    if (!CLIENT_NAME.test(client)) return undefined;
    return { email: email.slice(0, at), network: "", client };
  }
  const rest = text.slice(slash + 1);
  const at = rest.lastIndexOf("@");
  const network = at < 0 ? rest : rest.slice(0, at);
  const client = at < 0 ? "" : rest.slice(at + 1);
  if (!network || (at >= 0 && !CLIENT_NAME.test(client))) return undefined;
  return { email, network, client };
}

/** A client let in. */
export interface Login {
  user: UserRecord;
  identity: Identity;
  /** What it logged in with: revoking or changing it ends the session. */
  credential?: Credential;
  /** The connection it attaches to (absent without NETWORK). */
  connection?: ConnectionRecord;
}

/**
 * Why a login was refused, said to the client in its 904 line. `suspended` is said only to a
 * client whose credentials were right: a guess learns nothing of the account.
 */
export type Refusal = "throttled" | "invalid" | "no-network" | "suspended";

/** What checking needs. */
export interface AuthDeps {
  store: Store;
  loginThrottle: LoginThrottle;
  /** Run at every accepted login before its network is looked up (an owed default connection). */
  loggedIn?: (user: UserRecord) => Promise<void>;
  /** The LDAP directory, asked before the account's own password. */
  directory?: DirectoryLogin;
}

/** Checks a username and password from `address`. */
export async function authenticate(
  deps: AuthDeps,
  username: string,
  password: string,
  address: string,
): Promise<Login | Refusal> {
  const identity = parseIdentity(username);
  const email = identity?.email ?? username.slice(0, 320);
  const attempt = deps.loginThrottle.begin(email, address);
  if ("wait" in attempt) return "throttled";
  let user = identity ? await deps.store.users.byEmail(identity.email) : undefined;
  // An app token (made on the account page, revocable) or the account password; the password is
  // always verified otherwise (a decoy hash without a user), so an unknown email takes as long.
  let ok = false;
  let credential: Credential | undefined;
  if (user && looksLikeAppToken(password)) {
    const id = await deps.store.appTokens.find(user.id, await appTokenHash(password));
    if (id !== undefined) {
      ok = true;
      credential = { kind: "token", id };
      await deps.store.appTokens.used(id, Date.now());
    }
  }
  // The directory's word first, where there is one (never given an app token).
  const vouched = !ok && identity && !looksLikeAppToken(password)
    ? await deps.directory?.login(identity.email, password)
    : undefined;
  if (vouched) [ok, user] = [true, vouched];
  if (!ok) ok = await verifyPassword(user?.passwordHash, password);
  if (!ok || !user || !identity) {
    attempt.fail();
    return "invalid";
  }
  attempt.succeed();
  if (user.suspended) return "suspended";
  credential ??= { kind: "password", generation: await passwordGeneration(user.passwordHash) };
  await deps.loggedIn?.(user);
  if (!identity.network) return { user, identity, credential };
  const connection = await deps.store.connections.get(user.id, identity.network);
  if (!connection) return "no-network";
  return { user, identity, credential, connection };
}

/** The fingerprint a certificate is registered by: SHA-256 of its DER, lower-case hex. */
export function certificateFingerprint(der: Uint8Array): string {
  return createHash("sha256").update(der).digest("hex");
}

/**
 * Checks a TLS client certificate (SASL EXTERNAL) from `address`. `username` is the authorization
 * identity, or the USER name when the client gave none (see certificateIdentity).
 */
export async function authenticateCertificate(
  deps: AuthDeps,
  certificate: Uint8Array | undefined,
  username: string,
  address: string,
): Promise<Login | Refusal> {
  const fingerprint = certificate ? certificateFingerprint(certificate) : "";
  const attempt = deps.loginThrottle.begin(`certfp:${fingerprint || "none"}`, address);
  if ("wait" in attempt) return "throttled";
  const owner = fingerprint ? await deps.store.certfp.owner(fingerprint) : undefined;
  const user = owner === undefined ? undefined : await deps.store.users.byId(owner);
  const identity = user && certificateIdentity(user.email, username);
  if (!user || !identity) {
    attempt.fail();
    return "invalid";
  }
  attempt.succeed();
  if (user.suspended) return "suspended";
  const credential: Credential = { kind: "certificate", fingerprint };
  await deps.loggedIn?.(user);
  if (!identity.network) return { user, identity, credential };
  const connection = await deps.store.connections.get(user.id, identity.network);
  if (!connection) return "no-network";
  return { user, identity, credential, connection };
}

/**
 * The identity a certificate's owner logs in with: `[EMAIL]/NETWORK[@CLIENT]` names a network
 * (and EMAIL, when given, must be the owner's), as `EMAIL[@CLIENT]` names none; anything else
 * without a slash (a client's default user name, a nick) names nothing. Undefined when it names
 * someone else or cannot be one.
 */
function certificateIdentity(email: string, text: string): Identity | undefined {
  const slash = text.indexOf("/");
  if (slash < 0) {
    // An email (with a client's name after it, or not) must be the owner's.
    const named = text.includes("@") ? parseIdentity(text) : undefined;
    if (named && named.email.toLowerCase() !== email.toLowerCase()) return undefined;
    return { email, network: "", client: named?.client ?? "" };
  }
  const named = text.slice(0, slash);
  if (named && named.toLowerCase() !== email.toLowerCase()) return undefined;
  return parseIdentity(`${email}${text.slice(slash)}`);
}
