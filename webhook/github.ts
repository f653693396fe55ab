/** GitHub webhooks: signature check, and one readable line per push, issue, pull request, release. */
import { safeEqual } from "../lib/crypto.ts";

const encoder = new TextEncoder();

/** HMAC-SHA256 of the raw body, as GitHub writes it: `sha256=<hex>`. */
export async function githubSignature(
  secret: string,
  body: Uint8Array<ArrayBuffer>,
): Promise<string> {
  const key = await crypto.subtle.importKey(
    "raw",
    encoder.encode(secret),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  const mac = new Uint8Array(await crypto.subtle.sign("HMAC", key, body));
  return "sha256=" + Array.from(mac, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** Whether `header` (X-Hub-Signature-256) signs `body` with `secret`; compared in constant time. */
export async function verifyGithubSignature(
  secret: string,
  body: Uint8Array<ArrayBuffer>,
  header: string | undefined,
): Promise<boolean> {
  if (!header) return false;
  return safeEqual(await githubSignature(secret, body), header.trim().toLowerCase());
}

// deno-lint-ignore no-explicit-any -- webhook payloads are read field by field
type Payload = any;

/** One line of text: no control characters (no IRC line breaks), at most `max` characters. */
function flat(value: unknown, max = 200): string {
  // deno-lint-ignore no-control-regex -- control characters are exactly what is removed
  const text = String(value ?? "").replace(/[\u0000-\u001f\u007f]+/g, " ").trim();
  return text.length > max ? text.slice(0, max - 1) + "…" : text;
}

/** The message for one GitHub event, or undefined for events and actions it does not report. */
export function formatGithubEvent(event: string, p: Payload): string | undefined {
  const repo = flat(p?.repository?.full_name, 100);
  const who = flat(p?.sender?.login ?? p?.pusher?.name ?? "someone", 50);
  if (!repo) return undefined;
  const prefix = `[${repo}] ${who}`;
  switch (event) {
    case "push": {
      const branch = flat(String(p.ref ?? "").replace(/^refs\/(heads|tags)\//, ""), 100);
      if (p.deleted) return `${prefix} deleted ${branch}`;
      const commits: Payload[] = Array.isArray(p.commits) ? p.commits : [];
      const n = commits.length;
      const head = flat(
        String(p.head_commit?.message ?? commits[n - 1]?.message ?? "").split("\n")[0],
      );
      const what = `${n} commit${n === 1 ? "" : "s"}`;
      return `${prefix} pushed ${what} to ${branch}${head ? `: ${head}` : ""} ${
        flat(p.compare, 300)
      }`
        .trim();
    }
    case "issues": {
      const i = p.issue;
      if (!i || !p.action) return undefined;
      return `${prefix} ${flat(p.action, 30)} issue #${Number(i.number)}: ${flat(i.title)} ${
        flat(i.html_url, 300)
      }`.trim();
    }
    case "pull_request": {
      const pr = p.pull_request;
      if (!pr || !p.action) return undefined;
      const action = p.action === "closed" && pr.merged ? "merged" : flat(p.action, 30);
      return `${prefix} ${action} pull request #${Number(pr.number)}: ${flat(pr.title)} ${
        flat(pr.html_url, 300)
      }`.trim();
    }
    case "release": {
      const r = p.release;
      if (!r || !p.action) return undefined;
      const name = flat(r.name || r.tag_name);
      return `${prefix} ${flat(p.action, 30)} release ${name} ${flat(r.html_url, 300)}`.trim();
    }
  }
  return undefined;
}
