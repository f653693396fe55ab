/** A conversation's own settings kept for the user: its notification level and its draft. */
import { z } from "zod";
import { operations } from "../operation.ts";
import * as P from "../parameters.ts";
import { MAX_DRAFT, NOTIFY_LEVELS } from "../../limits.ts";

const where = z.object({
  connection_id: P.connection_id,
  conversation_id: P.conversation_id,
});

const level = z.enum(NOTIFY_LEVELS, {
  error: `One of ${NOTIFY_LEVELS.join(", ")}.`,
}).meta({
  description:
    "all: every message notifies; mentions: only mentions (the default in channels); muted: none, and the conversation's unread messages are not counted in the tab's title.",
});

const draft = z.string({ error: "draft is required." })
  .max(MAX_DRAFT, { error: `At most ${MAX_DRAFT} characters.` })
  .meta({ description: "The half-typed line; empty when none." });

export const CONVERSATION_PREFS = operations({
  setConversationNotify: {
    method: "post",
    path: "/connection/{connection_id}/conversation/{conversation_id}/notify",
    summary: "Choose how much of a conversation notifies the user.",
    description: "Parley addition (not in Convos 8.07).",
    tags: ["conversation"],
    params: where,
    body: z.object({ notify: level }),
    responses: {
      200: { description: "The level in effect.", schema: z.object({ notify: level }) },
    },
  },
  setConversationDetached: {
    method: "post",
    path: "/connection/{connection_id}/conversation/{conversation_id}/detached",
    summary: "Detach a channel from IRC clients, or reattach it.",
    description:
      "Parley addition (not in Convos 8.07). A detached channel stays joined and stored, but is out of attached IRC clients' channel lists (as BouncerServ channel update -detached); 404 for a conversation that is no channel.",
    tags: ["conversation"],
    params: where,
    body: z.object({ detached: z.boolean({ error: "detached is true or false." }) }),
    responses: {
      200: { description: "Its state now.", schema: z.object({ detached: z.boolean() }) },
    },
  },
  getConversationDraft: {
    method: "get",
    path: "/connection/{connection_id}/conversation/{conversation_id}/draft",
    summary: "The line the user has half typed in a conversation, on any device.",
    description: "Parley addition (not in Convos 8.07).",
    tags: ["conversation"],
    params: where,
    responses: {
      200: { description: "The draft.", schema: z.object({ draft }) },
    },
  },
  saveConversationDraft: {
    method: "post",
    path: "/connection/{connection_id}/conversation/{conversation_id}/draft",
    summary: "Keep the line the user has half typed in a conversation; empty clears it.",
    description: "Parley addition (not in Convos 8.07). Clearing the draft of a conversation " +
      "that no longer exists (closed meanwhile) succeeds: there is nothing to clear.",
    tags: ["conversation"],
    params: where,
    body: z.object({ draft }),
    responses: {
      200: { description: "Kept.", schema: z.object({ draft }) },
    },
  },
});
