/** Connections: list, create, update (URL, wanted state, on-connect commands), remove. */
import { Hono } from "hono";
import { z } from "zod";
import type { AppDeps, AppEnv } from "../http/env.ts";
import { jsonBody } from "../http/validate.ts";
import { currentUser, requireUser } from "../http/session.ts";
import { conversationName } from "./conversations.ts";

const wantedState = z.enum(["connected", "disconnected"], {
  error: "wanted_state must be connected or disconnected.",
});
const commands = z.array(
  z.string().trim().max(512, { error: "A command is too long." })
    .regex(/^[^\r\n\0]*$/, { error: "A command must be one line without NUL." }),
).max(50);
/** A display name the user picks (Parley's; Convos names a connection after its host). */
const name = z.string().trim().min(1, { error: "name must not be empty." })
  .max(64, { error: "name is at most 64 characters." })
  .regex(/^[^\p{Cc}]*$/u, { error: "name must not contain control characters." });
const url = z.string({ error: "url is required." }).trim().min(1, { error: "url is required." })
  .max(2048);

/** createConnection's body. */
export const createBody = z.object({
  url,
  name: name.optional(),
  conversation_id: z.string().trim().pipe(conversationName).optional(),
  on_connect_commands: commands.optional(),
  wanted_state: wantedState.optional(),
});
/** updateConnection's body. */
export const updateBody = z.object({
  url: url.optional(),
  name: name.optional(),
  on_connect_commands: commands.optional(),
  wanted_state: wantedState.optional(),
});

/** Routes under /api/connections and /api/connection/{connection_id}. */
export function connectionRoutes(deps: AppDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();

  app.get("/connections", requireUser, async (c) => {
    return c.json({ connections: await deps.connections.list(currentUser(c).id) });
  });

  app.post("/connections", requireUser, async (c) => {
    const body = await jsonBody(c, createBody);
    return c.json(await deps.connections.create(currentUser(c), body, "/body"));
  });

  app.post("/connection/:connection_id", requireUser, async (c) => {
    const body = await jsonBody(c, updateBody);
    const id = c.req.param("connection_id");
    return c.json(await deps.connections.update(currentUser(c).id, id, body, "/body"));
  });

  app.delete("/connection/:connection_id", requireUser, async (c) => {
    await deps.connections.remove(currentUser(c).id, c.req.param("connection_id"));
    return c.json({ message: "Deleted." });
  });

  return app;
}
