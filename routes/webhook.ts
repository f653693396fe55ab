/** webhook: a provider's signed event, posted by the bot to the conversations routed to it. */
import { Hono } from "hono";
import type { AppDeps, AppEnv } from "../http/env.ts";
import { ApiError, badRequest, notFound, unauthorized } from "../http/errors.ts";
import { formatGithubEvent, verifyGithubSignature } from "../webhook/github.ts";
import { log } from "../lib/log.ts";

// GitHub caps payloads at 25 MB; the events Parley reports are far smaller.
const MAX_BODY = 5 * 1024 * 1024;

/** The webhook route. */
export function webhookRoutes(deps: AppDeps) {
  const app = new Hono<AppEnv>();

  app.post("/webhook/:provider_name", async (c) => {
    if (c.req.param("provider_name") !== "github") throw notFound("Unknown webhook provider.");
    const github = deps.bot?.config.webhooks.github;
    if (!deps.bot || !github) throw new ApiError(503, "No bot is configured for webhooks.");
    if (Number(c.req.header("content-length") ?? 0) > MAX_BODY) {
      throw new ApiError(413, "The payload is too large.", "/body");
    }
    const raw = new Uint8Array(await c.req.arrayBuffer());
    if (raw.length > MAX_BODY) throw new ApiError(413, "The payload is too large.", "/body");
    // The signature covers the raw bytes, so it is checked before anything is parsed.
    if (!(await verifyGithubSignature(github.secret, raw, c.req.header("x-hub-signature-256")))) {
      throw unauthorized("Bad or missing X-Hub-Signature-256.");
    }
    const event = c.req.header("x-github-event") ?? "";
    if (event === "ping") return c.json({ delivered: [] });
    let payload: unknown;
    try {
      payload = JSON.parse(new TextDecoder().decode(raw));
    } catch {
      throw badRequest("The body is not valid JSON.", "/body");
    }
    const message = formatGithubEvent(event, payload);
    const repo = String(
      (payload as { repository?: { full_name?: string } })?.repository?.full_name ?? "",
    )
      .toLowerCase();
    const delivered: { to: string; message: string }[] = [];
    const failed: { to: string; error: string }[] = [];
    if (message) {
      for (const route of github.routes) {
        if (route.repository.toLowerCase() !== repo) continue;
        if (!(route.events as string[]).includes(event)) continue;
        const [connectionId, ...rest] = route.to.split("/");
        try {
          await deps.irc.send(deps.bot.user.id, connectionId, rest.join("/"), message);
          delivered.push({ to: route.to, message });
        } catch (err) {
          const error = err instanceof ApiError ? err.message : "Could not send.";
          log.warn("webhook delivery failed", { to: route.to, error: String(err) });
          failed.push({ to: route.to, error });
        }
      }
    }
    return c.json(failed.length ? { delivered, failed } : { delivered });
  });

  return app;
}
