/**
 * What the chat needs only after its first paint (the overlays, link previews, command answers
 * as tables, Tab's completion, its popup and what it offers, the topic's editor, uploads, what
 * the keyboard shortcuts do, and the page telling whether it is looked at), as one chunk fetched
 * once the app is idle or when first needed.
 */
export { Overlays } from "./Overlays.tsx";
export { Embed } from "./Embed.tsx";
export { ChannelTable, HelpTable, InviteLine, WhoisTable } from "./CommandOutput.tsx";
export { choosePopup, popupFor } from "../popup.ts";
export { emojisFor } from "../emoji.ts";
export { applyCompletion, completionNicks, nextCompletion, startCompletion } from "../complete.ts";
export { CompletionPopup, POPUP_ID } from "./CompletionPopup.tsx";
export { TopicEdit } from "./TopicEdit.tsx";
export { uploadFiles } from "../upload.ts";
export { runShortcut } from "../shortcuts.ts";
import { watchPresence } from "../presence.ts";

// Started with this chunk (a second after login): whether the page is looked at matters only
// minutes later, so it stays out of the first load.
watchPresence();
