/** Conversations, their history, sending, search and notifications. */
import { z } from "zod";
import { operations } from "../operation.ts";
import * as P from "../parameters.ts";
import * as D from "../definitions.ts";
import { queryLimit, queryTime } from "../fields.ts";

/** A channel or nick as a conversation_id: no spaces, commas or control characters. */
export const conversationName = z.string().max(100, { error: "The name is too long." })
  .regex(/^[^\s,\p{Cc}]*$/u, { error: "Not a channel or nick name." });

/** Longest `match` accepted; longer is a 400, never a slow query. */
const MAX_MATCH = 500;

const match = z.string().max(MAX_MATCH, { error: `At most ${MAX_MATCH} characters.` })
  .meta({ description: "Messages must match this string" }).optional();

const limit = { description: "Max number of messages to retrieve", type: "integer" };

/** A page of history; `limit`'s default depends on the other values, so it is read after them. */
const historyQuery = z.object({
  before: P.before,
  after: P.after,
  around: P.around,
  limit: z.string().optional().meta(limit),
  match,
});

const page = z.object({
  after: z.string().meta({ format: "date-time" }).optional(),
  before: z.string().meta({ format: "date-time" }).optional(),
  messages: z.array(D.Message).optional(),
});

export const CONVERSATIONS = operations({
  listConversations: {
    method: "get",
    path: "/conversations",
    summary: "Get a list of all conversations.",
    tags: ["conversation"],
    responses: {
      200: {
        description: "List of conversations.",
        schema: z.object({
          conversations: z.array(D.Conversation).optional(),
        }),
      },
    },
  },
  markConversationAsRead: {
    method: "post",
    path: "/connection/{connection_id}/conversation/{conversation_id}/read",
    summary: "Clears unread for a conversation.",
    tags: ["conversation"],
    params: z.object({
      connection_id: P.connection_id,
      conversation_id: P.conversation_id,
    }),
    responses: {
      200: { description: "Successful response.", schema: z.record(z.string(), z.unknown()) },
    },
  },
  markConnectionAsRead: {
    method: "post",
    path: "/connection/{connection_id}/read",
    summary: "Clears unread for a connection.",
    tags: ["connection"],
    params: z.object({
      connection_id: P.connection_id,
    }),
    responses: {
      200: { description: "Successful response.", schema: z.record(z.string(), z.unknown()) },
    },
  },
  sendMessage: {
    method: "post",
    path: "/connection/{connection_id}/conversation/{conversation_id}/messages",
    summary: 'Send a message or a command ("/me waves") to a conversation.',
    description:
      "Parley addition (not in Convos 8.07). The web client sends over /events; this is for scripts.",
    tags: ["chat"],
    body: z.object({
      message: z.string({ error: "message is required." }).min(1, { error: "message is required." })
        .max(65536, { error: "The message is too long." }),
    }),
    params: z.object({
      connection_id: P.connection_id,
      conversation_id: conversationName.meta({ parameter: "conversation_id" }),
    }),
    responses: {
      200: {
        description: "Sent; a command may add what it answered.",
        schema: z.looseObject({
          message: z.string().optional(),
        }),
      },
    },
  },
  conversationMessages: {
    method: "get",
    path: "/connection/{connection_id}/conversation/{conversation_id}/messages",
    summary:
      "Get a list of messages. Note: this resource require the user to be authenticated first.",
    tags: ["conversation"],
    params: z.object({
      connection_id: P.connection_id,
      conversation_id: P.conversation_id,
    }),
    query: historyQuery,
    responses: {
      200: { description: "List of messages.", schema: page },
    },
  },
  connectionMessages: {
    method: "get",
    path: "/connection/{connection_id}/messages",
    summary:
      "Get a list of messages. Note: this resource require the user to be authenticated first.",
    tags: ["conversation"],
    params: z.object({
      connection_id: P.connection_id,
    }),
    query: historyQuery,
    responses: {
      200: { description: "List of messages.", schema: page },
    },
  },
  searchMessages: {
    method: "get",
    path: "/search",
    summary: "Search for historic messages.",
    tags: ["search"],
    query: z.object({
      match,
      connection_id: z.string().max(100).meta({ description: "An ID for a connection" })
        .optional(),
      conversation_id: z.string().max(200).meta({ description: "An ID for a conversation" })
        .optional(),
      from: z.string().max(100).meta({ description: "Sender must match this string" }).optional(),
      before: queryTime.meta({
        description: "Find messages before a given ISO 8601 timestamp",
        format: "date-time",
      }),
      after: queryTime.meta({
        description: "Find messages after a given ISO 8601 timestamp",
        format: "date-time",
      }),
      limit: queryLimit(60, 200).meta(limit),
    }),
    responses: {
      200: {
        description: "List of messages.",
        schema: z.object({
          after: z.string().meta({ format: "date-time" }).optional(),
          before: z.string().meta({ format: "date-time" }).optional(),
          messages: z.array(D.Message).optional(),
          end: z.boolean().meta({ description: "Parley: true when nothing older exists." })
            .optional(),
        }),
      },
    },
  },
  notificationMessages: {
    method: "get",
    path: "/notifications",
    summary: "Get list of notications.",
    description: "A notification is added once your name is mentioned in a chat.",
    tags: ["chat"],
    query: z.object({
      limit: queryLimit(40, 200).meta({
        description: "How many notifications to return (default 40, at most 200).",
        minimum: 1,
      }),
      before: P.before,
    }),
    responses: {
      200: {
        description: "List of notifications.",
        schema: z.object({
          messages: z.array(D.Notification).optional(),
          end: z.boolean().meta({ description: "Parley: true when nothing older exists." })
            .optional(),
          before: z.string().meta({
            description: "Parley: pass as before to read older notifications.",
            format: "date-time",
          }).optional(),
        }),
      },
    },
  },
  markNotificationsAsRead: {
    method: "post",
    path: "/notifications/read",
    summary: "Mark notications as read.",
    tags: ["chat"],
    responses: {
      200: { description: "Successful response.", schema: z.object({}) },
    },
  },
});
