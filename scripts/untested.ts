/**
 * `deno task untested`: lists the production modules outside the web client that no test file
 * imports directly, by folder, with their count. A reader's tool, not a check: a module reached
 * only through another one, or only through the daemon a test starts, is listed too, since no test
 * names it and so no test says what it should do.
 *
 * A production module is a `.ts` file outside `tests/`, `bench/`, `static/` and `scripts/`, and
 * not a `*_test.ts`. A test file is a `*_test.ts` or `*_test.tsx` anywhere; `tests/support/` helpers
 * are not test files (a module only a helper imports is exercised, but named by no test). An import
 * counts when it brings a value (`import type` does not): a static import or re-export, or a
 * dynamic `import("...")` with a literal path.
 *
 *   deno task untested [--root=DIR] [--json]
 */
import ts from "typescript";
import { dirname, join, relative, resolve } from "node:path";

const rootArg = Deno.args.find((a) => a.startsWith("--root="))?.slice("--root=".length);
const root = rootArg ? resolve(rootArg) : resolve(dirname(new URL(import.meta.url).pathname), "..");
const SKIP_DIRS = new Set([".git", "node_modules", "local", "dist", "screenshots", "fixtures"]);
/** Top-level folders whose modules are not production code (or are the web client's). */
const NOT_PRODUCTION = new Set(["tests", "bench", "static", "scripts"]);

const isTestFile = (path: string) => /_test\.tsx?$/.test(path);

function listFiles(dir: string, out: string[] = []): string[] {
  for (const entry of Deno.readDirSync(dir)) {
    if (entry.isDirectory) {
      if (!SKIP_DIRS.has(entry.name)) listFiles(join(dir, entry.name), out);
    } else if (/\.tsx?$/.test(entry.name) && !entry.name.endsWith(".d.ts")) {
      out.push(relative(root, join(dir, entry.name)));
    }
  }
  return out;
}

function isProduction(path: string): boolean {
  return path.endsWith(".ts") && !isTestFile(path) && !NOT_PRODUCTION.has(path.split("/")[0]);
}

/**
 * The files `file` imports values from, by path relative to the root (npm and `jsr:` specifiers
 * are left out: the import map holds packages only).
 */
function valueImports(file: string, text: string): string[] {
  const kind = file.endsWith(".tsx") ? ts.ScriptKind.TSX : ts.ScriptKind.TS;
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false, kind);
  const out = new Set<string>();
  const add = (spec: string) => {
    if (spec.startsWith(".")) out.add(relative(root, resolve(root, dirname(file), spec)));
  };
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const clause = node.importClause;
      // A bare `import "./x.ts"` runs the module; `import type` brings nothing that runs.
      const typeOnly = clause?.isTypeOnly ||
        (clause && !clause.name && clause.namedBindings &&
          ts.isNamedImports(clause.namedBindings) &&
          clause.namedBindings.elements.length > 0 &&
          clause.namedBindings.elements.every((e) => e.isTypeOnly));
      if (!typeOnly) add(node.moduleSpecifier.text);
    } else if (
      ts.isExportDeclaration(node) && !node.isTypeOnly && node.moduleSpecifier &&
      ts.isStringLiteral(node.moduleSpecifier)
    ) {
      add(node.moduleSpecifier.text);
    } else if (
      ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments.length >= 1 && ts.isStringLiteralLike(node.arguments[0])
    ) {
      add(node.arguments[0].text);
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return [...out];
}

/** The production modules no test file imports a value from, sorted. */
function untested(files: string[], read: (path: string) => string): string[] {
  const imported = new Set<string>();
  for (const file of files.filter(isTestFile)) {
    for (const to of valueImports(file, read(file))) imported.add(to);
  }
  return files.filter((f) => isProduction(f) && !imported.has(f)).sort();
}

if (import.meta.main) {
  const files = listFiles(root);
  const production = files.filter(isProduction);
  const list = untested(files, (path) => Deno.readTextFileSync(join(root, path)));
  if (Deno.args.includes("--json")) {
    console.log(JSON.stringify({ production: production.length, untested: list }, null, 2));
  } else {
    const byFolder = new Map<string, string[]>();
    for (const path of list) {
      const folder = path.includes("/") ? path.slice(0, path.indexOf("/")) : ".";
      byFolder.set(folder, [...byFolder.get(folder) ?? [], path]);
    }
    for (const [folder, paths] of [...byFolder].sort(([a], [b]) => a.localeCompare(b))) {
      console.log(`${folder}/ (${paths.length})`);
      for (const p of paths) console.log(`  ${p}`);
    }
    console.log(
      `\n${list.length} of ${production.length} production modules are imported by no test file`,
    );
  }
}
