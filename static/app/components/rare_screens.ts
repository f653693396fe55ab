/**
 * The screens that most page loads never show (signing in, registering, search, notifications,
 * the forms of a connection or a conversation, files, the first run, joining a channel), as one chunk: one place in
 * the bundle's graph, so that together they split the first load's shared code no more than one
 * lazy screen does (each apart made the first load ~1 KB larger in small shared chunks). The
 * account and admin screens stay chunks of their own.
 */
export { Login, Register } from "./Auth.tsx";
export { Notifications } from "./Notifications.tsx";
export { Search } from "./Search.tsx";
export { ConnectionForm } from "./ConnectionForm.tsx";
export { ConversationSettings } from "./ConversationSettings.tsx";
export { JoinLink } from "./JoinLink.tsx";
export { Files } from "./Files.tsx";
export { FirstRun } from "./FirstRun.tsx";
export { JoinChannel } from "./JoinChannel.tsx";
