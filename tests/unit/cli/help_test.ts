/** cli/help.ts: every flag of the option table stands apart from its variable. */
import { assert } from "../../support/assert.ts";
import { DAEMON_USAGE, MAIN_USAGE } from "../../../cli/help.ts";
import { OPTIONS } from "../../../config.ts";

Deno.test("help: each option row has its flag, two spaces at least, then its variable", () => {
  for (const usage of [MAIN_USAGE, DAEMON_USAGE]) {
    for (const o of OPTIONS) {
      const row = usage.split("\n").find((l) => l.startsWith(`  --${o.flag} `));
      if (!row) continue;
      assert(new RegExp(`^  --${o.flag} {2,}${o.env}: `).test(row), row);
    }
  }
  assert(
    DAEMON_USAGE.split("\n").some((l) => l.startsWith("  --irc-listen-plain-anywhere  ")),
    "the longest flag is listed",
  );
});
