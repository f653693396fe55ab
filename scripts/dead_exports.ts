/**
 * `deno task check` (via `deno run -A scripts/dead_exports.ts`): lists every export of a non-test
 * module that no other non-test module imports. An export only tests import counts as unused too,
 * unless its declaration carries the JSDoc tag `@internal` ("a test seam, kept for tests"): a seam
 * is then a choice written where the code is, not an accident. An export only its own file uses
 * is listed as well: its `export` keyword is surplus (files in `SURPLUS_NOT_YET` excepted). What
 * must stay for another reason (an entry point's contract, a file other tools load by path) is
 * named, with why, in scripts/dead_exports_allow.txt. Exits 1 when it finds anything not allowed.
 *
 * Parses each file with the TypeScript parser (no type checker: fast, and imports are syntax).
 * Only relative imports are followed; the import map holds npm packages only.
 */
import ts from "typescript";
import { dirname, join, relative, resolve } from "node:path";

/** `--root=DIR` checks another tree (the checker's own test gives it a small one). */
const rootArg = Deno.args.find((a) => a.startsWith("--root="))?.slice("--root=".length);
const root = rootArg ? resolve(rootArg) : resolve(dirname(new URL(import.meta.url).pathname), "..");
const skipDirs = new Set([".git", "node_modules", "local", "dist", "screenshots", "fixtures"]);

/**
 * Files whose surplus `export` keywords (on names only the file itself uses) are not yet removed,
 * because other work was changing them; the check skips those findings there (`--all` shows them).
 * The list only shrinks: tests/unit/scripts/dead_exports_test.ts fails once a listed file has none.
 *
 * @internal test seam
 */
export const SURPLUS_NOT_YET: readonly string[] = [];

/** Test code: its imports make nothing "used", and its own exports are not checked. */
function isTest(path: string): boolean {
  return path.startsWith("tests/");
}

function listFiles(dir: string, out: string[] = []): string[] {
  for (const entry of Deno.readDirSync(dir)) {
    if (entry.isDirectory) {
      if (!skipDirs.has(entry.name)) listFiles(join(dir, entry.name), out);
    } else if (/\.tsx?$/.test(entry.name) && !entry.name.endsWith(".d.ts")) {
      out.push(relative(root, join(dir, entry.name)));
    }
  }
  return out;
}

/** `local`: the file itself uses the name, so only the `export` keyword may be surplus. */
type Export = { name: string; line: number; seam: boolean; local: boolean };

const ALL = "*";
const exportsOf = new Map<string, Export[]>();
/** `file` -> names imported from it -> whether a non-test module imports it (else tests only). */
const usedFrom = new Map<string, Map<string, boolean>>();

function use(file: string, name: string, fromTest: boolean): void {
  let names = usedFrom.get(file);
  if (!names) usedFrom.set(file, names = new Map());
  names.set(name, (names.get(name) ?? false) || !fromTest);
}

function target(from: string, spec: string): string | undefined {
  if (!spec.startsWith(".")) return undefined;
  return relative(root, resolve(root, dirname(from), spec));
}

function hasSeamTag(node: ts.Node): boolean {
  return ts.getJSDocTags(node).some((t) => t.tagName.text === "internal");
}

function isExported(node: ts.Node): boolean {
  return ts.canHaveModifiers(node) &&
    (ts.getModifiers(node) ?? []).some((m) => m.kind === ts.SyntaxKind.ExportKeyword);
}

function isDefault(node: ts.Node): boolean {
  return ts.canHaveModifiers(node) &&
    (ts.getModifiers(node) ?? []).some((m) => m.kind === ts.SyntaxKind.DefaultKeyword);
}

function scan(file: string): void {
  const text = Deno.readTextFileSync(join(root, file));
  const kind = file.endsWith(".tsx") ? ts.ScriptKind.TSX : ts.ScriptKind.TS;
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, kind);
  const test = isTest(file);
  const exports: Export[] = [];
  const line = (n: ts.Node) => sf.getLineAndCharacterOfPosition(n.getStart(sf)).line + 1;
  const add = (name: string, node: ts.Node, seamNode: ts.Node = node) =>
    exports.push({ name, line: line(node), seam: hasSeamTag(seamNode), local: false });
  const idents = new Map<string, number>();

  for (const stmt of sf.statements) {
    if (ts.isImportDeclaration(stmt) && ts.isStringLiteral(stmt.moduleSpecifier)) {
      const to = target(file, stmt.moduleSpecifier.text);
      const clause = stmt.importClause;
      if (!to || !clause) continue;
      if (clause.name) use(to, "default", test);
      const bindings = clause.namedBindings;
      if (bindings && ts.isNamespaceImport(bindings)) use(to, ALL, test);
      if (bindings && ts.isNamedImports(bindings)) {
        for (const el of bindings.elements) use(to, (el.propertyName ?? el.name).text, test);
      }
    } else if (ts.isExportDeclaration(stmt)) {
      const spec = stmt.moduleSpecifier;
      const to = spec && ts.isStringLiteral(spec) ? target(file, spec.text) : undefined;
      const clause = stmt.exportClause;
      if (!clause) {
        if (to) use(to, ALL, test); // `export * from`: whatever the importer asks for
      } else if (ts.isNamedExports(clause)) {
        for (const el of clause.elements) {
          add(el.name.text, el, stmt);
          if (to) use(to, (el.propertyName ?? el.name).text, test);
        }
      } else {
        add(clause.name.text, clause, stmt);
        if (to) use(to, ALL, test);
      }
    } else if (ts.isExportAssignment(stmt)) {
      add("default", stmt);
    } else if (isExported(stmt)) {
      if (isDefault(stmt)) add("default", stmt);
      else if (ts.isVariableStatement(stmt)) {
        for (const d of stmt.declarationList.declarations) {
          if (ts.isIdentifier(d.name)) add(d.name.text, d, stmt);
        }
      } else {
        const name = (stmt as ts.DeclarationStatement).name;
        if (name && ts.isIdentifier(name)) add(name.text, stmt);
      }
    }
  }
  // Dynamic imports and `typeof import("./x")` anywhere in the file: everything of the target.
  const visit = (node: ts.Node): void => {
    if (ts.isIdentifier(node)) idents.set(node.text, (idents.get(node.text) ?? 0) + 1);
    const dynamic = ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword && node.arguments.length === 1 &&
      ts.isStringLiteralLike(node.arguments[0]);
    if (dynamic) {
      const to = target(file, (node.arguments[0] as ts.StringLiteralLike).text);
      if (to) use(to, ALL, test);
    }
    if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) {
      const lit = node.argument.literal;
      const to = ts.isStringLiteral(lit) ? target(file, lit.text) : undefined;
      if (to) {
        use(
          to,
          node.qualifier && ts.isIdentifier(node.qualifier) ? node.qualifier.text : ALL,
          test,
        );
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  for (const e of exports) e.local = (idents.get(e.name) ?? 0) > 1;
  if (!test) exportsOf.set(file, exports);
}

function readAllowList(): Map<string, string> {
  const allowed = new Map<string, string>();
  const text = Deno.readTextFileSync(join(root, "scripts/dead_exports_allow.txt"));
  for (const raw of text.split("\n")) {
    const line = raw.replace(/^#.*$|\s+#.*$/, "").trim(); // `path#name  # why`
    if (line) allowed.set(line, raw);
  }
  return allowed;
}

function main(): void {
  /** `--all` also lists the surplus `export` keywords of the files in `SURPLUS_NOT_YET`. */
  const all = Deno.args.includes("--all");
  const notYet = new Set(all ? [] : SURPLUS_NOT_YET);
  const files = listFiles(root).sort();
  for (const file of files) scan(file);
  const allowed = readAllowList();
  const seen = new Set<string>();
  const findings: string[] = [];
  for (const [file, exports] of exportsOf) {
    const names = usedFrom.get(file);
    if (names?.get(ALL) === true) continue;
    for (const e of exports) {
      const key = `${file}#${e.name}`;
      const prod = names?.get(e.name);
      if (prod === true) continue;
      const testOnly = prod === false || names?.get(ALL) === false;
      if (testOnly && e.seam) continue;
      if (!testOnly && e.local && notYet.has(file)) continue;
      if (allowed.has(key)) {
        seen.add(key);
        continue;
      }
      findings.push(
        `${file}:${e.line} ${e.name}: ${
          testOnly ? "used only by tests" : e.local ? "used only in its file" : "unused"
        }`,
      );
    }
  }
  const stale = [...allowed.keys()].filter((k) => !seen.has(k));
  for (const f of findings) console.error(f);
  for (const k of stale) {
    console.error(`scripts/dead_exports_allow.txt: ${k} is not dead now (used, or gone); drop it`);
  }
  if (findings.length || stale.length) {
    console.error(
      `\n${findings.length} dead export(s), ${stale.length} stale allow-list line(s). Remove the ` +
        "export, tag a test seam `@internal`, or allow-list it with why (scripts/dead_exports_allow.txt).",
    );
    Deno.exit(1);
  }
}

// The test imports `SURPLUS_NOT_YET` without running the check.
if (import.meta.main) main();
