/** Tab completion (static/app/complete.ts): which nicks, in which order, and the text it leaves. */
import { assertEquals } from "../../../support/assert.ts";
import {
  applyCompletion,
  completionNicks,
  nextCompletion,
  startCompletion,
} from "../../../../static/app/complete.ts";

Deno.test("tab completion: nicks at the start get a colon, cycling wraps", () => {
  const nicks = ["bob", "Bobby", "alice"];
  let c = startCompletion("bo", 2, nicks, [])!;
  assertEquals(applyCompletion(c), { text: "bob: ", cursor: 5 });
  c = nextCompletion(c);
  assertEquals(applyCompletion(c).text, "Bobby: ");
  c = nextCompletion(c);
  assertEquals(applyCompletion(c).text, "bob: ");
  assertEquals(applyCompletion(startCompletion("hi al", 5, nicks, [])!).text, "hi alice ");
  assertEquals(startCompletion("zz", 2, nicks, []), null);
});

Deno.test("tab completion: commands at the start, channels anywhere, text after the cursor kept", () => {
  assertEquals(applyCompletion(startCompletion("/jo", 3, [], [])!).text, "/join ");
  assertEquals(startCompletion("x /jo", 5, [], []), null);
  const c = startCompletion("/join #pa later", 9, [], ["#parley", "#other"])!;
  assertEquals(applyCompletion(c), { text: "/join #parley later", cursor: 13 });
});

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
