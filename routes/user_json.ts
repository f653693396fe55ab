/** The User resource as the API returns it. */
import type { AppDeps } from "../http/env.ts";
import { formatMicros } from "../protocol/time.ts";
import type { UserRecord } from "../store/users.ts";
import { listConversations } from "./conversations.ts";
import { publicUrl } from "../irc/url.ts";
import { retentionOf } from "../store/retention.ts";
import type { UserJson } from "../protocol/resources.ts";

/** Which optional lists getUser includes. */
interface UserJsonOptions {
  connections?: boolean;
  conversations?: boolean;
  /** The caller's address, shown to themselves as Convos's `remote_address`. */
  remoteAddress?: string;
}

/** Shapes a user as the User schema, with server-wide read-only fields filled in. */
export async function userJson(
  deps: AppDeps,
  user: UserRecord,
  opts: UserJsonOptions = {},
): Promise<UserJson> {
  const settings = await deps.store.settings.current(deps.config.defaultConnection);
  const out: UserJson = {
    email: user.email,
    uid: String(user.id),
    registered: formatMicros(user.registered),
    ...(opts.remoteAddress ? { remote_address: opts.remoteAddress } : {}),
    roles: user.roles,
    ...(user.suspended ? { suspended: true as const } : {}),
    highlight_keywords: user.highlightKeywords,
    unread: await deps.store.messages.notifications?.unread(user.id) ?? 0,
    // Shown to every user: without the password or a channel key an admin may have put in it.
    default_connection: publicUrl(settings.default_connection),
    forced_connection: settings.forced_connection,
    video_service: settings.video_service,
  };
  // Only while retention is on: with it off the user is exactly Convos's shape.
  const retentionDays = retentionOf(deps.config, settings);
  if (retentionDays > 0) out.message_retention_days = retentionDays;
  if (opts.connections) out.connections = await deps.connections.list(user.id);
  if (opts.conversations) {
    out.conversations = await listConversations(deps, user.id);
  }
  return out;
}
