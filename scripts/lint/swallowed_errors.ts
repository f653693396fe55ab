/// <reference lib="deno.unstable" />
/**
 * `deno lint` plugin: an error the production code drops must say why nothing is lost.
 *
 * It reports, outside `tests/`, `bench/` and `*_test.ts`:
 * - a `catch` clause whose block holds no statement;
 * - a `.catch(handler)` whose handler is a function doing nothing (an empty block, or an
 *   expression body of `undefined` or `void ...`);
 * unless a comment holding `why:` sits on the line before the `catch`, or anywhere from there to
 * the end of the handler. Handling the error (logging it at debug at least, with what was lost)
 * needs no comment.
 *
 * `NOT_YET` lists the files that still hold unexplained ones; they are skipped until cleaned, and
 * `tests/unit/scripts/lint/swallowed_errors_test.ts` fails once a listed file is clean, so the list only shrinks.
 */

/**
 * Files (relative to the repository, `/`-separated) not yet cleaned; the list only shrinks.
 *
 * @internal test seam
 */
export const NOT_YET: readonly string[] = [];

const MARK = /\bwhy:/;

/**
 * Whether a file (absolute or relative path) is production code: not a test, bench or build.
 *
 * @internal test seam
 */
export function production(filename: string): boolean {
  const path = filename.replaceAll("\\", "/");
  if (/_test\.[jt]sx?$/.test(path)) return false;
  if (/(^|\/)(tests|bench|node_modules|local)\//.test(path)) return false;
  return !/(^|\/)static\/dist\//.test(path);
}

/**
 * Whether a file is one of `NOT_YET`.
 *
 * @internal test seam
 */
export function notYet(filename: string): boolean {
  const path = filename.replaceAll("\\", "/");
  return NOT_YET.some((f) => path === f || path.endsWith("/" + f));
}

/** Whether a function node does nothing with what it is given. */
function noOp(fn: Deno.lint.Node): boolean {
  if (fn.type !== "ArrowFunctionExpression" && fn.type !== "FunctionExpression") return false;
  const body = fn.body;
  if (!body) return false;
  if (body.type === "BlockStatement") return body.body.length === 0;
  if (body.type === "Identifier") return body.name === "undefined";
  return body.type === "UnaryExpression" && body.operator === "void";
}

function lineOf(text: string, offset: number): number {
  let line = 0;
  for (let i = text.indexOf("\n"); i !== -1 && i < offset; i = text.indexOf("\n", i + 1)) line++;
  return line;
}

/** Whether a `why:` comment lies from the line before `start` through `end`. */
function explained(ctx: Deno.lint.RuleContext, start: number, end: number): boolean {
  const text = ctx.sourceCode.text;
  const first = lineOf(text, start) - 1;
  const last = lineOf(text, end);
  return ctx.sourceCode.getAllComments().some((c) => {
    if (!MARK.test(c.value)) return false;
    const line = lineOf(text, c.range[0]);
    return line >= first && line <= last;
  });
}

/**
 * The plugin, checking the files `checks` accepts.
 *
 * @internal test seam
 */
export function swallowedErrors(checks: (filename: string) => boolean): Deno.lint.Plugin {
  return {
    name: "parley",
    rules: {
      "swallowed-error": {
        create(ctx) {
          if (!checks(ctx.filename)) return {};
          return {
            CatchClause(node) {
              if (node.body.body.length > 0) return;
              if (explained(ctx, node.range[0], node.range[1])) return;
              ctx.report({
                node,
                message: "empty catch: log what is lost, or say in a `why:` comment why nothing is",
              });
            },
            CallExpression(node) {
              const callee = node.callee;
              if (callee.type !== "MemberExpression" || callee.computed) return;
              if (callee.property.type !== "Identifier" || callee.property.name !== "catch") return;
              const handler = node.arguments[0];
              if (!handler || !noOp(handler)) return;
              if (explained(ctx, callee.property.range[0], node.range[1])) return;
              ctx.report({
                node: callee.property,
                message:
                  "no-op .catch: log what is lost, or say in a `why:` comment why nothing is",
              });
            },
          };
        },
      },
    },
  };
}

export default swallowedErrors((f) => production(f) && !notYet(f));
