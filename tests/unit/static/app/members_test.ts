/** Member lists (static/app/members.ts): ranks, groups and changes. */
import { assertEquals } from "../../../support/assert.ts";
import {
  filterMembers,
  forgetMembers,
  groupMembers,
  joined,
  left,
  type Member,
  members,
  membersMark,
  moded,
  parsePrefix,
  prefixOf,
  renamed,
  setMembers,
  sortMembers,
  updateMembers,
} from "../../../../static/app/members.ts";

const nicks = (l: Member[]) => sortMembers(l).map((m) => prefixOf(m) + m.nick).join(" ");

Deno.test("members: operators, then voiced, then the rest, each by nick", () => {
  const list: Member[] = [
    { nick: "zed", modes: [] },
    { nick: "Amy", modes: ["v"] },
    { nick: "bob", modes: ["o"] },
    { nick: "al", modes: [] },
    { nick: "root", modes: ["v", "q"] },
  ];
  assertEquals(nicks(list), "~root @bob +Amy al zed");
});

Deno.test("members: ranked and signed by the server's own PREFIX", () => {
  const p = parsePrefix("(Yov)!@+");
  assertEquals(p, { modes: "Yov", signs: "!@+" });
  const list: Member[] = [
    { nick: "amy", modes: ["v"] },
    { nick: "bob", modes: ["o"] },
    { nick: "cid", modes: ["Y"] },
    { nick: "dee", modes: ["q"] },
  ];
  const shown = (l: Member[]) => sortMembers(l, p).map((m) => prefixOf(m, p) + m.nick).join(" ");
  // q is not this server's: dee has no rank here, and Y (unknown to the usual list) is first.
  assertEquals(shown(list), "!cid @bob +amy dee");
  // A MODE with the server's own letter takes its parameter and ranks the member.
  assertEquals(shown(moded(list, "+Y-o amy bob", p)), "!amy !cid bob dee");
  // An absent or odd PREFIX is the usual one.
  assertEquals(parsePrefix(undefined), parsePrefix("(qaohv)~&@%+"));
  assertEquals(parsePrefix("(ov)@"), parsePrefix(undefined));
});

Deno.test("members: join, part, nick and mode changes keep the list current", () => {
  let l: Member[] = [{ nick: "bob", modes: ["o"] }, { nick: "carol", modes: [] }];
  l = joined(l, "dave");
  l = joined(l, "DAVE"); // twice is once
  assertEquals(nicks(l), "@bob carol dave");
  l = moded(l, "+v-o carol bob");
  assertEquals(nicks(l), "+carol bob dave");
  // Parameters of other modes (a key, a ban mask, a limit) are skipped, not taken for nicks.
  l = moded(l, "+kol secret dave 10");
  assertEquals(nicks(l), "@dave +carol bob");
  l = moded(l, "-lb *!*@x");
  assertEquals(nicks(l), "@dave +carol bob");
  l = renamed(l, "Carol", "carla");
  assertEquals(nicks(l), "@dave +carla bob");
  l = left(l, "DAVE");
  assertEquals(nicks(l), "+carla bob");
  assertEquals(filterMembers(sortMembers(l), "CAR").map((m) => m.nick), ["carla"]);
});

Deno.test("members: grouped by rank with the server's PREFIX, empty groups left out", () => {
  const list = [
    { nick: "zoe", modes: [] },
    { nick: "bob", modes: ["o"] },
    { nick: "owner", modes: ["q"] },
    { nick: "half", modes: ["h"] },
    { nick: "amy", modes: ["v"] },
  ];
  const groups = groupMembers(list).map((g) => [g.rank, g.members.map((m) => m.nick)]);
  assertEquals(groups, [
    ["op", ["owner", "bob"]],
    ["voice", ["half", "amy"]],
    ["rest", ["zoe"]],
  ]);
  assertEquals(
    groupMembers([{ nick: "a", modes: [] }], parsePrefix("(ov)@+")).map((g) => g.rank),
    ["rest"],
  );
});

Deno.test("members: a list asked for before changes and answered after them gets them", () => {
  const k = "c1\0#late";
  const here = (x: string) => x === k;
  setMembers(k, [{ nick: "bob", modes: [] }]);
  const since = membersMark();
  // While the list is on its way: dave comes, is renamed, leaves; bob is made an operator.
  updateMembers((l) => joined(l, "dave"), here);
  updateMembers((l) => renamed(l, "dave", "dave2"), here);
  updateMembers((l) => moded(l, "+o bob"), here);
  updateMembers((l) => left(l, "dave2"), here);
  // A change in another channel is not this list's.
  updateMembers((l) => joined(l, "eve"), (x) => x === "c1\0#other");
  // The answer was taken after dave's rename, before his part and bob's mode.
  setMembers(k, [{ nick: "bob", modes: [] }, { nick: "dave2", modes: [] }], since);
  assertEquals(nicks(members.value[k]), "@bob");
  // Without a mark the answer is taken as it is.
  setMembers(k, [{ nick: "zed", modes: [] }]);
  assertEquals(nicks(members.value[k]), "zed");
  // The connection went down while the list was on its way: the answer is dropped.
  const again = membersMark();
  forgetMembers(here);
  setMembers(k, [{ nick: "bob", modes: [] }], again);
  assertEquals(members.value[k], undefined);
});
