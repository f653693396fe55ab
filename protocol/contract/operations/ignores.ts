/** The user's ignore list (Parley's own; the same list /ignore and /unignore change). */
import { z } from "zod";
import { operations } from "../operation.ts";
import { MAX_MASK_LENGTH } from "../../limits.ts";

const mask = z.string({ error: "mask is required." }).min(1, "mask is required.")
  .max(MAX_MASK_LENGTH, `At most ${MAX_MASK_LENGTH} characters.`)
  .meta({ description: "A nick (`troll`) or a mask with wildcards (`*!*@spam.example`)." });

const ignores = z.array(z.string()).meta({
  description: "The user's masks, casefolded, in the order added.",
});

/** An answer that changed the list: the mask as stored, and the list after it. */
const changed = z.object({
  mask: z.string().meta({ description: "The mask as stored: `troll` becomes `troll!*@*`." }),
  ignores,
});

export const IGNORES = operations({
  listIgnores: {
    method: "get",
    path: "/ignores",
    summary: "The people the user ignores.",
    description:
      "Parley addition (not in Convos 8.07). Their messages, notices and actions are not stored, shown, counted unread or notified, on any connection or device.",
    tags: ["user"],
    responses: {
      200: { description: "The list.", schema: z.object({ ignores }) },
    },
  },
  addIgnore: {
    method: "post",
    path: "/ignores",
    summary: "Ignore someone.",
    description:
      "Parley addition (not in Convos 8.07). The same as `/ignore` typed in a conversation.",
    tags: ["user"],
    body: z.object({ mask }),
    responses: {
      201: { description: "Ignored (or already ignored).", schema: changed },
    },
  },
  removeIgnore: {
    method: "delete",
    path: "/ignores",
    summary: "Stop ignoring someone.",
    description: "Parley addition (not in Convos 8.07). The same as `/unignore`.",
    tags: ["user"],
    body: z.object({ mask }),
    responses: {
      200: { description: "Removed.", schema: changed },
    },
  },
});
