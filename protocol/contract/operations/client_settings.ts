/** The web client's settings of the user, kept on the server so that every device has them. */
import { z } from "zod";
import { operations } from "../operation.ts";
import { CLIENT_SETTINGS_LIMITS as L, JOIN_PARTS } from "../../client_settings.ts";

const joinParts = z.enum(JOIN_PARTS, {
  error: `One of ${JOIN_PARTS.join(", ")}.`,
}).meta({
  description:
    "How joins, parts, quits and nick changes show: each one, runs collapsed into one line, or hidden.",
});

const id = z.string({ error: "A string." }).max(L.id, { error: `At most ${L.id} characters.` });
const where = z.object({ connection_id: id, conversation_id: id });

/** Every setting; each is optional in a change, and the answer has them all. */
const fields = {
  theme: z.enum(["system", "light", "dark"], { error: "One of system, light, dark." }),
  compact: z.boolean({ error: "A boolean." }).meta({
    description: "One line per message with a fixed nick column.",
  }),
  clock24: z.boolean({ error: "A boolean." }).meta({ description: "Times as 14:05, not 2:05 PM." }),
  seconds: z.boolean({ error: "A boolean." }).meta({ description: "Times with seconds." }),
  embeds: z.boolean({ error: "A boolean." }).meta({ description: "Show link previews." }),
  join_parts: joinParts,
  nick_suffix: z.string({ error: "A string." }).max(L.suffix, {
    error: `At most ${L.suffix} characters.`,
  }).meta({
    description: 'What Tab completion adds after a nick at the start of a line (": " by default).',
  }),
  join_parts_networks: z.array(
    z.object({ connection_id: id, join_parts: joinParts }),
  ).max(L.networks, { error: `At most ${L.networks}.` }).meta({
    description: "A connection's own choice of join_parts, the default of its conversations.",
  }),
  join_parts_conversations: z.array(where.extend({ join_parts: joinParts }))
    .max(L.conversations, { error: `At most ${L.conversations}.` }).meta({
      description: "A conversation's own choice of join_parts, before its connection's.",
    }),
  pinned: z.array(where).max(L.pinned, { error: `At most ${L.pinned}.` }).meta({
    description: "The conversations shown first in the sidebar, in this order.",
  }),
};

const settings = z.object({
  ...fields,
  revision: z.number().int().min(0).meta({
    description:
      "How many times the settings were saved: of two copies, the one with the larger revision is newer. Set by the server; a save does not send it.",
  }),
});
const change = z.object(fields).partial();

export const CLIENT_SETTINGS = operations({
  getClientSettings: {
    method: "get",
    path: "/client-settings",
    summary: "The web client's settings of the user, on any device.",
    description: "Parley addition (not in Convos 8.07).",
    tags: ["user"],
    responses: {
      200: { description: "Every setting (the default where none was saved).", schema: settings },
    },
  },
  saveClientSettings: {
    method: "post",
    path: "/client-settings",
    summary: "Change some of the web client's settings; the others stay.",
    description:
      "Parley addition (not in Convos 8.07). Every open `/events` socket of the user gets a `client_settings` event with the result, its `revision` one more than before. A device may get the events of its own saves after their answers, and two devices' saves in either order: it keeps the copy with the larger revision.",
    tags: ["user"],
    body: change,
    responses: {
      200: { description: "Every setting after the change.", schema: settings },
    },
  },
});
