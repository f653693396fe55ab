/** The tab's title: the open conversation or screen, and the unread mentions; pure. */
import { t } from "./i18n.ts";
import { parseRoute } from "./router.ts";

/** What the title needs of a conversation. */
interface Titled {
  name: string;
  notify?: string;
}

/**
 * "(2) #busy - Parley": the name of what `route` shows (a conversation's name, a screen's, or
 * nothing) and the unread mentions, leaving out muted conversations.
 */
export function tabTitle(
  route: string,
  conversations: Readonly<Record<string, Titled>>,
  mentions: Readonly<Record<string, number>>,
  key: (cid: string, conv: string) => string,
): string {
  let count = 0;
  for (const [k, n] of Object.entries(mentions)) {
    if (conversations[k]?.notify !== "muted") count += n;
  }
  const name = screenName(route, conversations, key);
  const title = name ? `${name} - Parley` : "Parley";
  return count ? `(${count > 999 ? "999+" : count}) ${title}` : title;
}

function screenName(
  route: string,
  conversations: Readonly<Record<string, Titled>>,
  key: (cid: string, conv: string) => string,
): string {
  const [area, a, b] = parseRoute(route).parts;
  if (area === "chat") {
    if (a === "notifications") return t("Notifications");
    if (a === "search") return t("Search");
    if (a) return conversations[key(a, b ?? "")]?.name ?? b ?? a;
    return "";
  }
  if (area === "settings") {
    if (a === "account") return t("Account");
    if (a === "files") return t("Files");
    if (a === "server" || a === "users" || a === "profiles") return t("Administration");
    return t("Settings");
  }
  return "";
}
