/**
 * The docs stay a reference and the code's comments stay true to them:
 *
 * - a doc (docs/*.md, README.md) that names a repository file, in backticks (`irc/socket/worker.ts`,
 *   `bouncer/history/`) or as a markdown link, names one that exists; a link's `#anchor` is a
 *   heading of the doc it points at; a doc cites no issue ("issue 11": history lives in git);
 * - a code comment (non-test .ts/.tsx) or a doc that points at a docs section
 *   (`docs/irc.md, "Bursts"` or `docs/irc.md#bursts`) points at a heading that exists in that doc;
 * - a code comment does not narrate measurement history. The rule, kept simple on purpose: a
 *   comment must not put a figure (a number with a unit: ms, µs, s, KB, MB, GB, %, a rate per
 *   second) within 30 characters of "was", "were", "used to", "previously", "went from",
 *   "(before)", "than before" or "before the change/fix" in the same sentence, nor set two figures
 *   apart with an arrow ("278 → 135 MB"); and no comment cites an issue ("issue 11"). A comment says what is
 *   true now and why; how a figure came about belongs in the commit that changed it.
 *
 * NOT_YET lists the files that still fail and are being edited elsewhere; a listed file that is
 * clean fails too, so that the list only shrinks.
 */
import { assert, assertEquals } from "../support/assert.ts";

const root = new URL("../../", import.meta.url).pathname;

/** Files that still fail one of the rules (each with the rule it fails), to be fixed. */
const NOT_YET: Record<string, string> = {};

/** The repository's files, as git lists them (tracked and not ignored). */
async function repoFiles(): Promise<string[]> {
  const out = await new Deno.Command("git", {
    args: ["ls-files", "--cached", "--others", "--exclude-standard"],
    cwd: root,
    stdout: "piped",
  }).output();
  const files = new TextDecoder().decode(out.stdout).split("\n").filter(Boolean);
  return files.filter((f) => exists(f));
}

function exists(path: string): boolean {
  try {
    Deno.statSync(root + path);
    return true;
  } catch {
    return false; // a deleted file git still lists: it does not exist
  }
}

const files = await repoFiles();
const fileSet = new Set(files);
const dirSet = new Set(files.flatMap((f) => {
  const parts = f.split("/");
  return parts.slice(1).map((_, i) => parts.slice(0, i + 1).join("/") + "/");
}));
const topDirs = new Set([...dirSet].filter((d) => d.split("/").length === 2).map((d) => d));

/** Built, not kept in git: named by the docs, present after `deno task build`. */
const GENERATED = ["static/dist/"];

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
export function slug(heading: string): string {
  return heading.trim().toLowerCase().replace(/`/g, "").replace(/[^\p{L}\p{N} _-]/gu, "")
    .replace(/ /g, "-");
}

/** A markdown file's headings, as written (without the #s) and as anchors. */
function headings(markdown: string): { texts: string[]; anchors: Set<string> } {
  const texts: string[] = [];
  let fenced = false;
  for (const line of markdown.split("\n")) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    const m = !fenced && /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (m) texts.push(m[1]);
  }
  return { texts, anchors: new Set(texts.map(slug)) };
}

const headingCache = new Map<string, ReturnType<typeof headings>>();
function headingsOf(path: string) {
  let h = headingCache.get(path);
  if (!h) headingCache.set(path, h = headings(Deno.readTextFileSync(root + path)));
  return h;
}

/** Normalises a path against the folder of the file that names it (for markdown links). */
function resolve(from: string, target: string): string {
  const parts = from.split("/").slice(0, -1);
  for (const part of target.split("/")) {
    if (part === "..") parts.pop();
    else if (part !== "." && part !== "") parts.push(part);
  }
  return parts.join("/") + (target.endsWith("/") ? "/" : "");
}

/** What is wrong with the repository paths a markdown file names. */
export function docProblems(path: string, text: string): string[] {
  const problems: string[] = [];
  const prose = text.replace(/^(```|~~~)[\s\S]*?^(```|~~~)/gm, "");
  const isRepoPath = (p: string) => [...topDirs].some((d) => p.startsWith(d));
  const checkPath = (p: string, how: string) => {
    if (GENERATED.some((g) => p.startsWith(g))) return;
    const ok = p.endsWith("/") ? dirSet.has(p) : fileSet.has(p) || dirSet.has(p + "/");
    if (!ok) problems.push(`${path}: ${how} ${p} does not exist`);
  };
  for (const [, code] of prose.matchAll(/`([^`\n]+)`/g)) {
    for (const token of code.split(/[\s,()]+/)) {
      const p = token.replace(/^\.\//, "").replace(/[.:;]$/, "");
      if (!/^[\w.-]+\/[\w./-]*$/.test(p) || /[*<>{}$]/.test(p)) continue;
      if (!isRepoPath(p)) continue;
      if (!/\.\w+$/.test(p) && !p.endsWith("/")) continue; // `irc/socket` reads as prose
      checkPath(p, "names");
    }
  }
  problems.push(...sectionProblems(path, prose, "points at"));
  const issue = ISSUE.exec(prose.replace(/`[^`\n]*`/g, ""));
  if (issue) problems.push(`${path}: cites an issue: "${issue[0]}"`);
  for (const [, target] of prose.matchAll(/\]\(([^)\s]+)\)/g)) {
    if (/^[a-z]+:/i.test(target)) continue; // https:, mailto:
    const [file, anchor] = target.split("#");
    const p = file ? resolve(path, file) : path;
    if (file) checkPath(p, "links to");
    if (anchor && p.endsWith(".md") && fileSet.has(p) && !headingsOf(p).anchors.has(anchor)) {
      problems.push(`${path}: links to ${p}#${anchor}, not a heading there`);
    }
  }
  return problems;
}

/** The comments of a TypeScript file: each block or run of line comments, as one string. */
export function comments(source: string): string[] {
  const out: string[] = [];
  let i = 0;
  let last = ""; // the last significant character, to tell a regex literal from a division
  let run: string[] = [];
  const endRun = () => {
    if (run.length) out.push(run.join(" "));
    run = [];
  };
  while (i < source.length) {
    const c = source[i];
    const next = source[i + 1];
    if (c === "/" && next === "/") {
      const end = source.indexOf("\n", i);
      run.push(source.slice(i + 2, end < 0 ? undefined : end).trim());
      i = end < 0 ? source.length : end + 1;
      continue;
    }
    if (c === "/" && next === "*") {
      endRun();
      const end = source.indexOf("*/", i + 2);
      const body = source.slice(i + 2, end < 0 ? undefined : end);
      out.push(body.split("\n").map((l) => l.replace(/^\s*\*?\s?/, "")).join(" "));
      i = end < 0 ? source.length : end + 2;
      continue;
    }
    if (c === "\n") {
      // A line comment run ends at a line that is not one.
      const rest = source.slice(i + 1);
      if (!/^\s*\/\//.test(rest)) endRun();
      i++;
      continue;
    }
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    endRun();
    if (c === '"' || c === "'" || c === "`") {
      i = skipString(source, i);
      last = c;
      continue;
    }
    if (
      c === "/" &&
      (last === "" || /[(,=:[!&|?{};+\-*%<>~^]/.test(last) ||
        /\b(return|typeof|case|of|in)$/.test(source.slice(Math.max(0, i - 8), i).trimEnd()))
    ) {
      i = skipRegex(source, i);
      last = "/";
      continue;
    }
    last = c;
    i++;
  }
  endRun();
  return out;
}

function skipString(s: string, i: number): number {
  const quote = s[i++];
  while (i < s.length && s[i] !== quote) {
    if (s[i] === "\\") i++;
    else if (quote === "`" && s[i] === "$" && s[i + 1] === "{") {
      // A template's expression: skip to its closing brace (strings inside it included).
      let depth = 0;
      i++;
      while (i < s.length) {
        if (s[i] === "{") depth++;
        else if (s[i] === "}" && --depth === 0) break;
        else if (s[i] === '"' || s[i] === "'" || s[i] === "`") i = skipString(s, i) - 1;
        i++;
      }
    }
    i++;
  }
  return i + 1;
}

function skipRegex(s: string, i: number): number {
  let inClass = false;
  i++;
  while (i < s.length && s[i] !== "\n") {
    if (s[i] === "\\") i++;
    else if (s[i] === "[") inClass = true;
    else if (s[i] === "]") inClass = false;
    else if (s[i] === "/" && !inClass) return i + 1;
    i++;
  }
  return i;
}

/** A number with a unit: a figure. */
const FIGURE =
  /\d[\d,.]*\s?(?:ms|µs|us|ns|s|seconds|minutes|KB|MB|GB|KiB|MiB|GiB|bytes|%|(?:msgs?|lines|rows|messages)\/s)(?![\w/])/;
/** Words that tell a figure's past, counted when a figure is within 30 characters of them. */
const HISTORY =
  /\b(?:was|were|used to|previously|formerly|went from|down from|up from|than before|before the (?:change|fix))\b|\(before\)/g;
/** Two figures set apart by an arrow, the second with its unit: "278 → 135 MB". */
const ARROW = new RegExp(String.raw`\d[\d,.]*\s?\S*\s?(?:→|->)\s?` + FIGURE.source);
const NEAR = 30;

/** Whether a sentence tells how a figure came about. */
export function narrates(sentence: string): boolean {
  if (ARROW.test(sentence)) return true;
  for (const m of sentence.matchAll(HISTORY)) {
    const from = Math.max(0, m.index - NEAR);
    if (FIGURE.test(sentence.slice(from, m.index + m[0].length + NEAR))) return true;
  }
  return false;
}
const ISSUE = /\bissues? #?\d+/i;

/**
 * What is wrong with the docs sections a text points at: `docs/x.md#anchor` or
 * `docs/x.md, "Heading"` (a heading that begins so), and the doc itself.
 */
function sectionProblems(path: string, text: string, how: string): string[] {
  const problems: string[] = [];
  const refs = text.replace(/\s+/g, " ").matchAll(
    /\bdocs\/([\w-]+\.md)(?:#([\w-]+)|,\s*"([^"]+)")?/g,
  );
  for (const [, doc, anchor, section] of refs) {
    const docPath = `docs/${doc}`;
    if (!fileSet.has(docPath)) {
      problems.push(`${path}: ${how} ${docPath}, which does not exist`);
      continue;
    }
    const h = headingsOf(docPath);
    if (anchor && !h.anchors.has(anchor)) {
      problems.push(`${path}: ${how} ${docPath}#${anchor}, not a heading there`);
    }
    if (section && !h.texts.some((t) => t.replace(/`/g, "").startsWith(section))) {
      problems.push(`${path}: ${how} ${docPath}, "${section}", not a heading there`);
    }
  }
  return problems;
}

/** What is wrong with a code file's comments. */
export function commentProblems(path: string, source: string): string[] {
  const problems: string[] = [];
  for (const comment of comments(source)) {
    const text = comment.replace(/\s+/g, " ");
    if (ISSUE.test(text)) {
      problems.push(`${path}: a comment cites an issue: "${ISSUE.exec(text)![0]}"`);
    }
    for (const sentence of text.split(/(?<=[.;!?])\s+(?=[A-Z(`])|;\s+/)) {
      if (narrates(sentence)) {
        problems.push(`${path}: a comment narrates a measurement: "${sentence.slice(0, 160)}"`);
      }
    }
    problems.push(...sectionProblems(path, text, "a comment points at"));
  }
  return problems;
}

const docs = files.filter((f) => /^docs\/[^/]+\.md$/.test(f) || f === "README.md");
const code = files.filter((f) =>
  /\.tsx?$/.test(f) && !f.startsWith("tests/") && !/_test\.tsx?$/.test(f) &&
  !f.startsWith("static/dist/")
);

function failing(): Map<string, string[]> {
  const byFile = new Map<string, string[]>();
  const add = (file: string, found: string[]) => found.length && byFile.set(file, found);
  for (const f of docs) add(f, docProblems(f, Deno.readTextFileSync(root + f)));
  for (const f of code) add(f, commentProblems(f, Deno.readTextFileSync(root + f)));
  return byFile;
}

Deno.test("docs name files that exist; comments point at sections that exist and narrate nothing", () => {
  const found = failing();
  const unexpected = [...found].filter(([f]) => !(f in NOT_YET)).flatMap(([, p]) => p);
  assertEquals(unexpected, [], unexpected.join("\n"));
  const clean = Object.keys(NOT_YET).filter((f) => !found.has(f));
  assertEquals(clean, [], `clean now, remove from NOT_YET: ${clean.join(", ")}`);
});

Deno.test("the rules catch what they are for", () => {
  assertEquals(docProblems("docs/x.md", "See `irc/socket/nowhere.ts`.").length, 1);
  assertEquals(docProblems("docs/x.md", "See `irc/socket/worker.ts` and `irc/socket/`.").length, 0);
  assertEquals(docProblems("docs/x.md", "[irc](irc.md) and [gone](gone.md)").length, 1);
  assertEquals(docProblems("docs/x.md", "[bursts](irc.md#no-such-heading)").length, 1);
  assertEquals(docProblems("docs/x.md", "`/proc/PID/status` and `https://a/b.ts`").length, 0);
  assertEquals(docProblems("docs/x.md", '(docs/performance.md, "IRC\nbursts")').length, 0);
  assertEquals(docProblems("docs/x.md", '(docs/performance.md, "Phase F")').length, 1);
  assertEquals(docProblems("docs/x.md", "Measured for issue 11.").length, 1);
  assertEquals(docProblems("docs/x.md", "Posts `opened issue #42`.").length, 0);
  const comment = (text: string) => commentProblems("x.ts", `/** ${text} */\nconst a = 1;\n`);
  assertEquals(comment('Why (docs/performance.md, "IRC bursts").').length, 0);
  assertEquals(comment('Why (docs/performance.md, "Phase F").').length, 1);
  assertEquals(comment("Why (docs/performance.md#no-such-heading).").length, 1);
  assertEquals(comment("See docs/nowhere.md.").length, 1);
  assertEquals(comment("Holds 16 MB (was 128 MB).").length, 1);
  assertEquals(comment("A commit took 50 ms before the fix.").length, 1);
  assertEquals(comment("Heap 234 → 137 MB.").length, 1);
  assertEquals(comment("Found in issue 11.").length, 1);
  assertEquals(comment("Waits 250 ms before the next checkpoint.").length, 0);
  assertEquals(comment("The cache was cleared (a word, no figure).").length, 0);
  assertEquals(comment("Logs `migrated store 7 -> 9 in 1.2 s`.").length, 0);
  assertEquals(comment("Once it was sent, a state goes out at most every 3 s.").length, 0);
  assertEquals(
    commentProblems("x.ts", 'const u = "https://x/*"; // fine\nconst r = /\\/\\*/;\n'),
    [],
  );
  assert(comments("const a = 1; // one\n// two\nconst b = 2; /* three */").length === 2);
});
