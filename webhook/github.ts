/**
 * GitHub webhooks: signature check, one readable line per event, and delivery through the bot's
 * IRC connections to the conversations that bot.json routes the repository's events to.
 */
import { DomainError } from "../lib/errors.ts";
import { hex, hmacBytes, safeEqual } from "../lib/crypto.ts";
import { log } from "../lib/log.ts";
import type { Bot } from "../irc/bot/bot.ts";
import type { IrcControl } from "../irc/control.ts";

/**
 * HMAC-SHA256 of the raw body under the secret, as GitHub writes it: `sha256=<hex>`.
 *
 * @internal test seam
 */
export async function githubSignature(secret: string, body: Uint8Array): Promise<string> {
  return "sha256=" + hex(await hmacBytes(secret, body));
}

/** Whether `header` (X-Hub-Signature-256) signs exactly these bytes; compared in constant time. */
export async function verifyGithubSignature(
  secret: string,
  body: Uint8Array,
  header: string | undefined,
): Promise<boolean> {
  if (!header) return false;
  return safeEqual(await githubSignature(secret, body), header.trim().toLowerCase());
}

/**
 * Text from a payload made safe for one IRC line: no control characters, bounded length.
 *
 * @internal test seam
 */
export function oneLine(value: unknown, max = 200): string {
  const text = Array.from(String(value ?? ""), (ch) => (ch < " " || ch === "\x7f" ? " " : ch))
    .join("").replace(/\s+/g, " ").trim();
  return text.length > max ? text.slice(0, max - 1) + "…" : text;
}

// deno-lint-ignore no-explicit-any -- webhook payloads are read field by field
type Payload = any;

function firstLine(text: unknown): string {
  return String(text ?? "").split(/\r?\n/)[0];
}

/**
 * The message for an event, or undefined for events and actions that are not posted. Covers push,
 * issues (opened, closed, reopened), pull_request (opened, closed, merged, reopened,
 * ready_for_review) and release (published).
 */
export function formatGithubEvent(event: string, p: Payload): string | undefined {
  const repo = oneLine(p?.repository?.full_name, 100);
  const who = oneLine(p?.sender?.login ?? p?.pusher?.name, 60);
  if (!repo) return undefined;
  const tag = `[${repo}]`;
  switch (event) {
    case "push": {
      const ref = String(p.ref ?? "");
      const name = oneLine(ref.replace(/^refs\/(heads|tags)\//, ""), 100);
      const kind = ref.startsWith("refs/tags/") ? "tag" : "branch";
      if (p.deleted) return `${tag} ${who} deleted ${kind} ${name}`;
      const commits = Array.isArray(p.commits) ? p.commits.length : 0;
      const url = oneLine(p.compare, 300);
      if (commits === 0) return `${tag} ${who} pushed ${kind} ${name} ${url}`.trim();
      const head = oneLine(firstLine(p.head_commit?.message ?? p.commits.at(-1)?.message), 120);
      const n = commits === 1 ? "1 commit" : `${commits} commits`;
      return `${tag} ${who} pushed ${n} to ${name}: ${head} ${url}`.trim();
    }
    case "issues": {
      if (!["opened", "closed", "reopened"].includes(p.action)) return undefined;
      const i = p.issue ?? {};
      return `${tag} ${who} ${p.action} issue #${Number(i.number) || 0}: ${oneLine(i.title)} ${
        oneLine(i.html_url, 300)
      }`.trim();
    }
    case "pull_request": {
      const pr = p.pull_request ?? {};
      let action: string = p.action;
      if (action === "closed" && pr.merged) action = "merged";
      if (!["opened", "closed", "merged", "reopened", "ready_for_review"].includes(action)) {
        return undefined;
      }
      if (action === "ready_for_review") action = "marked ready for review";
      return `${tag} ${who} ${action} pull request #${Number(pr.number) || 0}: ${
        oneLine(pr.title)
      } ${oneLine(pr.html_url, 300)}`.trim();
    }
    case "release": {
      if (p.action !== "published") return undefined;
      const r = p.release ?? {};
      const name = oneLine(r.name || r.tag_name);
      const tagName = oneLine(r.tag_name, 100);
      const title = name && name !== tagName ? `${tagName} (${name})` : tagName;
      return `${tag} ${who} published release ${title} ${oneLine(r.html_url, 300)}`.trim();
    }
  }
  return undefined;
}

/** Where an event of a repository goes: the `to` of every matching route. */
export function githubTargets(bot: Bot, event: string, repository: string): string[] {
  const routes = bot.config.webhooks.github?.routes ?? [];
  const repo = repository.toLowerCase();
  return routes
    .filter((r) => r.repository.toLowerCase() === repo && (r.events as string[]).includes(event))
    .map((r) => r.to);
}

/** The outcome of delivering one event. */
interface Delivery {
  delivered: { to: string; message: string }[];
  failed: { to: string; error: string }[];
}

/** Has the bot send `message` to each `to` (`<connection_id>/<conversation_id>`). */
export async function deliver(
  irc: IrcControl,
  bot: Bot,
  targets: string[],
  message: string,
): Promise<Delivery> {
  const out: Delivery = { delivered: [], failed: [] };
  for (const to of targets) {
    const slash = to.indexOf("/");
    const connectionId = to.slice(0, slash);
    const conversationId = to.slice(slash + 1);
    try {
      try {
        await irc.send(bot.user.id, connectionId, conversationId, message);
      } catch (err) {
        // Not (yet) a conversation of the bot: send it as a /msg on the connection.
        if (
          !(err instanceof DomainError && err.kind === "not_found" &&
            /conversation/i.test(err.message))
        ) {
          throw err;
        }
        await irc.send(bot.user.id, connectionId, "", `/msg ${conversationId} ${message}`);
      }
      out.delivered.push({ to, message });
    } catch (err) {
      // A domain error's message is meant for the user; anything else stays in the log.
      const error = err instanceof DomainError ? err.message : "Delivery failed.";
      log.warn("webhook delivery failed", { to, error: String(err) });
      out.failed.push({ to, error });
    }
  }
  return out;
}
