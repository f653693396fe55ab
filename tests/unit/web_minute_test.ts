/** Pure logic behind the busy-channel features: completion order, member groups, quoted reasons. */
import { assertEquals } from "../support/assert.ts";
import { completionNicks, startCompletion } from "../../static/app/complete.ts";
import { groupMembers, parsePrefix } from "../../static/app/members.ts";
import { plainReason } from "../../static/app/conn_error.ts";

Deno.test("completion: present nicks only, most recent speaker first, then the silent ones", () => {
  // Spoken in this order (the last is the most recent); dave left, carol became carla.
  const speakers = ["dave", "carol", "bob", "bobby", "carla"];
  const members = ["bob", "Bobby", "carla", "erin", "zed", "alice"];
  assertEquals(completionNicks(speakers, members, "erin"), [
    "carla",
    "Bobby",
    "bob",
    "alice",
    "zed",
  ]);
  // Without a member list (a private conversation), the speakers.
  assertEquals(completionNicks(["bob", "erin"], undefined, "erin"), ["bob"]);
  // Channels after nicks, found without their sign.
  const c = startCompletion("hi ca", 5, ["carla"], ["#cake"])!;
  assertEquals(c.candidates, ["carla", "#cake"]);
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

Deno.test("connection errors: a reason in quotes is shown without them; the user's own disconnect said so", () => {
  assertEquals(plainReason('"Closing link: gone"'), "Closing link: gone");
  assertEquals(
    plainReason('"Disconnected by the user."'),
    "You disconnected it. /connect connects it again.",
  );
});
