/** The top-level component: picks the screen from the route and the login state. */
import { useEffect, useLayoutEffect } from "preact/hooks";
import { t } from "../i18n.ts";
import {
  chatPath,
  lastConversation,
  navigate,
  parseRoute,
  rememberConversation,
  route,
} from "../router.ts";
import { onGlobalKey } from "../keys.ts";
import { conversations, drawerOpen, key, sidebar, toast, user } from "../state.ts";
import { closeConversation } from "../view.ts";
import { Sidebar } from "./Sidebar.tsx";
import { ChatView, TopBar } from "./ChatView.tsx";
import { afterLoad, lazy } from "../lazy.tsx";
import { overlay } from "../overlays.ts";

// Rarely opened screens load on demand, each a chunk of its own.
const ConnectionForm = lazy<{ uri?: string; cid?: string }>(
  () => import("./rare_screens.ts"),
  "ConnectionForm",
);
const ConversationSettings = lazy<{ cid: string; conv: string }>(
  () => import("./rare_screens.ts"),
  "ConversationSettings",
);
const JoinLink = lazy<{ cid: string; conv: string }>(() => import("./rare_screens.ts"), "JoinLink");
const Account = lazy(() => import("./Account.tsx"), "Account");
const Files = lazy(() => import("./rare_screens.ts"), "Files");
const Admin = lazy<{ tab: string }>(() => import("./Admin.tsx"), "Admin");
const FirstRun = lazy(() => import("./rare_screens.ts"), "FirstRun");
// Signing in and registering happen once per device: the chat does not need them.
const Login = lazy(() => import("./rare_screens.ts"), "Login");
const Register = lazy(() => import("./rare_screens.ts"), "Register");
const Notifications = lazy(() => import("./rare_screens.ts"), "Notifications");
const Search = lazy<{ q: string; from?: string; to?: string }>(
  () => import("./rare_screens.ts"),
  "Search",
);
/**
 * Whichever overlay is open (quick switcher, keys, menus), once its chunk has arrived: fetched
 * once the app is idle after login, or at the first one opened, so it stays out of the first load.
 */
function Overlays() {
  if (!overlay.value) return null;
  afterLoad.load();
  const Found = afterLoad.get()?.Overlays;
  return Found ? <Found /> : null;
}

/**
 * Where opening Parley lands: the conversation last open on this device while it still exists,
 * else the first in the sidebar, else the form that adds a network.
 */
function Welcome() {
  const last = lastConversation();
  const kept = last && conversations.value[key(last.cid, last.conv)] ? last : null;
  const first = sidebar.value.flatMap((g) => g.conversations)[0];
  const to = kept
    ? chatPath(kept.cid, kept.conv)
    : first
    ? chatPath(first.connection_id, first.conversation_id)
    : "";
  // Again on each route that shows this: "/" first becomes "/chat" (App), after this ran.
  useEffect(() => {
    if (to) navigate(to, true);
    else if (!sidebar.value.length) navigate("/settings/connection/add", true);
  }, [to, sidebar.value.length, route.value]);
  return (
    <main class="chat">
      <TopBar title="Parley" />
      <p class="empty">{t("Pick a conversation, or join a channel with /join #channel.")}</p>
    </main>
  );
}

function Screen() {
  const { parts, params } = parseRoute(route.value);
  const [area, a, b, c] = parts;
  if (area === "chat") {
    if (a === "notifications") return <Notifications />;
    if (a === "search") {
      return (
        <Search
          q={params.get("q") ?? ""}
          from={params.get("from") ?? undefined}
          to={params.get("to") ?? undefined}
        />
      );
    }
    if (a) return <ChatView cid={a} conv={b ?? ""} around={params.get("around") ?? undefined} />;
    return <Welcome />;
  }
  if (area === "settings") {
    if (a === "connection") {
      return b === "add"
        ? <ConnectionForm uri={params.get("uri") ?? undefined} />
        : <ConnectionForm cid={b} />;
    }
    // Where the server sends an irc:// link to a conversation the user is not in.
    if (a === "conversation" && !b) {
      return (
        <JoinLink
          cid={params.get("connection_id") ?? ""}
          conv={params.get("conversation_id") ?? ""}
        />
      );
    }
    if (a === "conversation") return <ConversationSettings cid={b} conv={c ?? ""} />;
    if (a === "account") return <Account />;
    if (a === "files") return <Files />;
    if (a === "first-run") return <FirstRun />;
    if (a === "server" || a === "users" || a === "profiles") return <Admin tab={a} />;
  }
  return <Welcome />;
}

/** The whole app. */
export function App() {
  const u = user.value;
  const { parts } = parseRoute(route.value);
  const area = parts[0] ?? "";
  // In the render that follows the route (as the open conversation does, ChatView.tsx).
  useLayoutEffect(() => {
    if (u === null && area !== "login" && area !== "register") navigate("/login", true);
    if (
      u &&
      (area === "login" || area === "" || (area === "register" && !route.value.includes("token=")))
    ) {
      navigate("/chat", true);
    }
    if (area !== "chat" || ["notifications", "search", undefined].includes(parts[1])) {
      closeConversation();
    } else if (u) rememberConversation(parts[1], parts[2] ?? "");
    // Not again when only the user's data changes (an unread count, on every mention).
  }, [u === undefined ? undefined : !!u, route.value]);
  useEffect(() => {
    if (!u) return;
    const idle = setTimeout(afterLoad.load, 1000);
    return () => clearTimeout(idle);
  }, [!!u]);
  useEffect(() => {
    // Escape closes overlays and the drawer; the other shortcuts are listed by "?" (keys.ts).
    const onKey = (e: KeyboardEvent) => {
      if (onGlobalKey(e)) e.preventDefault();
    };
    addEventListener("keydown", onKey);
    return () => removeEventListener("keydown", onKey);
  }, []);
  const inChat = area === "chat" && !!parts[1] && !["notifications", "search"].includes(parts[1]);
  if (u === undefined) return <div class="splash" aria-busy="true" />;
  if (area === "register") return <Register />;
  if (!u) return <Login />;
  return (
    <div class="layout">
      {/* Only where there is a message box: a skip link to nothing is a dead end. */}
      {inChat && <a class="skip" href="#composer-input">{t("Skip to the message box")}</a>}
      <Sidebar />
      {drawerOpen.value && (
        <div class="scrim" aria-hidden="true" onClick={() => (drawerOpen.value = false)} />
      )}
      <Screen />
      {/* In a conversation the notice sits above the message box, not over the last line. */}
      {toast.value && !inChat && <div class="toast" role="status">{toast.value}</div>}
      <Overlays />
    </div>
  );
}
