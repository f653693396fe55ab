/** Connections (list, create, update, remove) and the admins' connection profiles. */
import { z } from "zod";
import { operations } from "../operation.ts";
import * as P from "../parameters.ts";
import * as D from "../definitions.ts";
import { conversationName } from "./conversations.ts";

const wantedState = z.enum(["connected", "disconnected"], {
  error: "wanted_state must be connected or disconnected.",
}).meta({ description: "Connection state" });
const commands = z.array(
  z.string().trim().max(512, { error: "A command is too long." })
    .regex(/^[^\r\n\0]*$/, { error: "A command must be one line without NUL." }),
).max(50).meta({ description: "Commands to be run after the connection is established" });
/** A display name the user picks (Parley's; Convos names a connection after its host). */
const name = z.string().trim().min(1, { error: "name must not be empty." })
  .max(64, { error: "name is at most 64 characters." })
  .regex(/^[^\p{Cc}]*$/u, { error: "name must not contain control characters." })
  .meta({
    description:
      "Parley: a display name for the connection (default: the host's short name, e.g. libera)",
  });
const url = z.string({ error: "url is required." }).trim().min(1, { error: "url is required." })
  .max(2048).meta({ description: "Example: irc://user:pass@irc.perl.org?nick=superman" });

export const CONNECTIONS = operations({
  listConnections: {
    method: "get",
    path: "/connections",
    summary: "Get all the connections for a user.",
    tags: ["connection"],
    responses: {
      200: {
        description: "List of connections.",
        schema: z.object({
          connections: z.array(D.Connection).optional(),
        }),
      },
    },
  },
  createConnection: {
    method: "post",
    path: "/connections",
    summary: "Add a connection.",
    tags: ["connection"],
    body: z.object({
      url,
      name: name.optional(),
      conversation_id: z.string().trim().pipe(conversationName)
        .meta({ description: "Example: #convos" }).optional(),
      join: z.array(z.string().trim().pipe(conversationName))
        .max(20, { error: "At most 20 channels." })
        .meta({ description: "More channels to join once connected (Parley's own)." })
        .optional(),
      on_connect_commands: commands.optional(),
      wanted_state: wantedState.optional(),
    }),
    responses: {
      200: { description: "Connection information.", schema: D.Connection },
    },
  },
  updateConnection: {
    method: "post",
    path: "/connection/{connection_id}",
    summary: "Update a connection.",
    tags: ["connection"],
    body: z.object({
      url: url.meta({ format: "uri" }).optional(),
      name: name.optional(),
      on_connect_commands: commands.optional(),
      wanted_state: wantedState.optional(),
    }),
    params: z.object({
      connection_id: P.connection_id,
    }),
    responses: {
      200: { description: "Update a connection.", schema: D.Connection },
    },
  },
  removeConnection: {
    method: "delete",
    path: "/connection/{connection_id}",
    summary: "Delete a connection and all assosiated data.",
    tags: ["connection"],
    params: z.object({
      connection_id: P.connection_id,
    }),
    responses: {
      200: { description: "Remove a connection.", schema: D.Success },
    },
  },
  listConnectionProfiles: {
    method: "get",
    path: "/connection-profiles",
    summary: "List all connection profiles.",
    tags: ["connection", "connection-profile"],
    responses: {
      200: {
        description: "List of profiles.",
        schema: z.object({
          profiles: z.array(D.ConnectionProfile).optional(),
        }),
      },
    },
  },
  saveConnectionProfile: {
    method: "post",
    path: "/connection-profiles",
    summary: "Update or create a profile.",
    tags: ["connection", "connection-profile"],
    body: D.ConnectionProfile,
    responses: {
      200: { description: "Success.", schema: D.ConnectionProfile },
    },
  },
  removeConnectionProfile: {
    method: "delete",
    path: "/connection-profiles/{id}",
    summary: "Remove a connection profile.",
    tags: ["connection", "connection-profile"],
    params: z.object({
      id: z.string().meta({ description: "A unique profile identifier" }),
    }),
    responses: {
      200: { description: "Success.", schema: z.record(z.string(), z.unknown()) },
    },
  },
});
