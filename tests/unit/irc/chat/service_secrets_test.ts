/** What is kept of a line said to services: its password hidden, everything else as typed. */
import { assertEquals } from "../../../support/assert.ts";
import { HIDDEN, hideServicePassword } from "../../../../irc/chat/service_secrets.ts";

Deno.test("service passwords: hidden wherever a services' command carries one", () => {
  const cases: [string, string][] = [
    ["identify hunter2", `identify ${HIDDEN}`],
    ["IDENTIFY jane hunter2", `IDENTIFY jane ${HIDDEN}`],
    ["id hunter2", `id ${HIDDEN}`],
    ["login jane hunter2", `login jane ${HIDDEN}`],
    ["AUTH jane hunter2", `AUTH jane ${HIDDEN}`],
    ["register hunter2 jane@example.com", `register ${HIDDEN} jane@example.com`],
    ["ghost jane hunter2", `ghost jane ${HIDDEN}`],
    ["regain jane hunter2", `regain jane ${HIDDEN}`],
    ["recover jane hunter2", `recover jane ${HIDDEN}`],
    ["release jane hunter2", `release jane ${HIDDEN}`],
    ["group jane hunter2", `group jane ${HIDDEN}`],
    ["drop jane hunter2", `drop jane ${HIDDEN}`],
    ["set password hunter2", `set password ${HIDDEN}`],
    ["setpass jane key hunter2", `setpass jane key ${HIDDEN}`],
  ];
  for (const [said, kept] of cases) assertEquals(hideServicePassword(said), kept, said);
});

Deno.test("service passwords: lines that carry none are kept as typed", () => {
  for (
    const said of [
      "help",
      "info jane",
      "register #channel A channel about things",
      "ghost jane",
      "regain jane",
      "set email jane@example.com",
      "identify",
      "op #chan jane",
      "  help  me  ",
    ]
  ) assertEquals(hideServicePassword(said), said, said);
});
