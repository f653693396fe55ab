/** POST /api/webhook/{provider_name}: payloads for the bot, authenticated by their signature. */
import { Hono } from "hono";
import { bind } from "../http/bind.ts";
import type { AppDeps, AppEnv } from "../http/env.ts";
import { ApiError, badRequest, notFound, unauthorized } from "../http/errors.ts";
import { readBody } from "../http/body.ts";
import { RecentKeys } from "../webhook/replay.ts";
import {
  deliver,
  formatGithubEvent,
  githubTargets,
  verifyGithubSignature,
} from "../webhook/github.ts";

/** GitHub sends at most 25 MB; the events handled here are far smaller. */
const MAX_PAYLOAD = 5_000_000;

/** Routes under /api/webhook. */
export function webhookRoutes(deps: AppDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const recent = new RecentKeys();
  bind(app, "webhook", async (c, next) => {
    if (c.req.param("provider_name") !== "github") throw notFound("Unknown webhook provider.");
    const github = deps.bot?.config.webhooks.github;
    if (!deps.bot || !github) throw new ApiError(503, "No bot is configured for this webhook.");
    await next();
  }, async (c) => {
    const bot = deps.bot!;
    const secret = bot.config.webhooks.github!.secret;
    // The signature covers the exact bytes sent, so it is checked before anything is parsed.
    const raw = await readBody(c, MAX_PAYLOAD);
    if (!(await verifyGithubSignature(secret, raw, c.req.header("x-hub-signature-256")))) {
      throw unauthorized("The signature does not match.");
    }
    const event = c.req.header("x-github-event") ?? "";
    if (event === "ping") return c.json({ status: [], delivered: [] });
    let text = new TextDecoder().decode(raw);
    if (/x-www-form-urlencoded/i.test(c.req.header("content-type") ?? "")) {
      text = new URLSearchParams(text).get("payload") ?? "";
    }
    let payload;
    try {
      payload = JSON.parse(text);
    } catch {
      throw badRequest("The payload is not valid JSON.", "/body");
    }
    const message = formatGithubEvent(event, payload);
    if (!message) return c.json({ status: [], delivered: [] });
    // A replay of something posted is refused. The delivery id is not signed, so the signature
    // (the body's own) is remembered too: a replay under a new id is still a replay.
    const keys = [`sig:${c.req.header("x-hub-signature-256")!.trim().toLowerCase()}`];
    const id = c.req.header("x-github-delivery")?.trim();
    if (id) keys.push(`id:${id.slice(0, 100)}`);
    if (recent.seen(keys)) {
      throw new ApiError(
        409,
        "This delivery was received before; a replay is not posted.",
        "/body",
      );
    }
    recent.add(keys);
    const targets = githubTargets(bot, event, String(payload?.repository?.full_name ?? ""));
    const result = await deliver(deps.irc, bot, targets, message);
    // Posted nowhere: GitHub's "Redeliver" may try again.
    if (result.failed.length && !result.delivered.length) recent.forget(keys);
    // `status` is Convos's answer: one entry per target, `error` empty when it was posted.
    const status = [
      ...result.delivered.map((d) => ({ to: d.to, error: "" })),
      ...result.failed.map((f) => ({ to: f.to, error: f.error })),
    ].map(({ to, error }) => ({
      connection_id: to.slice(0, to.indexOf("/")),
      conversation_id: to.slice(to.indexOf("/") + 1),
      error,
    }));
    return c.json({
      status,
      ...(result.failed.length ? result : { delivered: result.delivered }),
    });
  });
  return app;
}
