/**
 * The completion popup's choices (static/app/popup.ts, with the real emoji table) and the tab's
 * title (title.ts); pure.
 */
import { assertEquals } from "../../../support/assert.ts";
import { applyCompletion, completionNicks } from "../../../../static/app/complete.ts";
import { choosePopup, POPUP_LIMIT, popupFor } from "../../../../static/app/popup.ts";
import { tabTitle } from "../../../../static/app/title.ts";
import { EMOJI } from "../../../../static/app/emoji_table.ts";
import { COMMAND_TABLE } from "../../../../protocol/command_table.ts";

// In the order completionNicks gives: the most recent speaker first, then the silent members.
const NICKS = completionNicks(["bea", "carl", "bob"], ["bea", "bob", "carl", "beth", "me"], "me");
const CHANNELS = ["#busy", "#tea", "#bench"];
const popup = (text: string, cursor = text.length) =>
  popupFor(text, cursor, NICKS, CHANNELS, COMMAND_TABLE);
const values = (text: string) => popup(text)?.items.map((i) => i.value);

Deno.test("popup: @ lists the nicks present, recent speakers first, the first chosen", () => {
  assertEquals(NICKS, ["bob", "carl", "bea", "beth"]);
  assertEquals(values("@b"), ["bob", "bea", "beth"]);
  assertEquals(values("@B"), ["bob", "bea", "beth"], "case does not matter");
  assertEquals(values("hi @"), NICKS, "@ alone: everyone present");
  assertEquals(popup("@b")?.index, 0);
  assertEquals(popup("@b")?.kind, "nick");
  assertEquals(values("@zed"), undefined, "no one: no popup");
});

Deno.test("popup: a nick's first two letters list it, none chosen, so Enter still sends", () => {
  assertEquals(values("hello be"), ["bea", "beth"]);
  assertEquals(popup("hello be")?.index, -1);
  assertEquals(popup("hello b"), null, "one letter is too little to offer");
  assertEquals(popup("bob"), null, "only what is typed already");
  assertEquals(popup("hello be there", 7), null, "not in the middle of a word");
  assertEquals(popup("hello be there", 8)?.items.map((i) => i.value), ["bea", "beth"]);
});

Deno.test("popup: / at the start lists commands with their usage", () => {
  const p = popup("/jo")!;
  assertEquals(p.kind, "command");
  assertEquals(p.index, 0);
  assertEquals(p.items.map((i) => i.value), ["/join"]);
  assertEquals(p.items[0].detail, "<#channel> [key]");
  assertEquals(p.items[0].description, COMMAND_TABLE.find((c) => c.name === "join")!.description);
  assertEquals(popup("/")!.items.length, POPUP_LIMIT, "all of them, a screenful at a time");
  assertEquals(popup("say /jo"), null, "not after other words");
  assertEquals(popup("//jo"), null, "an escaped slash is text");
  const all = popup("/")!.items.map((i) => i.value);
  assertEquals(all, [...all].sort(), "in the order Tab steps through them");
});

Deno.test("popup: # lists the connection's channels", () => {
  assertEquals(values("see #b"), ["#bench", "#busy"], "by name");
  assertEquals(popup("see #b")?.index, 0);
  assertEquals(popup("see #tea"), null, "complete already");
});

Deno.test("popup: `:` and two letters of a name list the emoji, the first chosen", () => {
  const emoji = (text: string) =>
    popupFor(text, text.length, NICKS, CHANNELS, COMMAND_TABLE, EMOJI);
  const labels = (text: string) => emoji(text)?.items.map((i) => i.label);
  // The name itself first, then names starting so, then a word of a name, then a keyword.
  assertEquals(labels("nice :thumbs"), ["👍 :thumbsup:", "👎 :thumbsdown:"]);
  assertEquals(labels("nice :thumbsup"), ["👍 :thumbsup:"]);
  assertEquals(labels(":up")?.slice(0, 4), [
    "🆙 :up:",
    "🙃 :upside_down_face:",
    "🫴 :palm_up_hand:",
    "👆 :point_up_2:",
  ]);
  assertEquals(labels(":+1"), ["👍 :+1:"]);
  assertEquals(emoji("hi :tada")?.items[0].value, "🎉");
  assertEquals(emoji("hi :tada")?.kind, "emoji");
  assertEquals(emoji("hi :tada")?.index, 0);
  assertEquals(labels(":approve"), ["👍 :+1:"], "found by a keyword");
  assertEquals(emoji(":heart")?.items.length, POPUP_LIMIT, "a screenful");
  assertEquals(new Set(emoji(":heart")!.items.map((i) => i.value)).size, POPUP_LIMIT, "each once");
  assertEquals(emoji(":HEART")?.items[0].value, "❤️", "case does not matter");
  assertEquals(emoji("hi :t"), null, "one letter is too little (`:D`, `:P`)");
  assertEquals(emoji("see http://x:thumbsup"), null, "only a word of its own");
  assertEquals(emoji(":zzzzqq"), null, "no such name");
  assertEquals(popup("hi :tada"), null, "none before the table is loaded");
});

Deno.test("popup: taking an item completes its word, as Tab does", () => {
  const at = (text: string, index: number, cursor = text.length) =>
    applyCompletion(choosePopup(text, cursor, popup(text, cursor)!, index));
  assertEquals(at("@b", 1), { text: "bea: ", cursor: 5 }, "addressed at the start of a line");
  assertEquals(at("hi @b", 0), { text: "hi bob ", cursor: 7 });
  assertEquals(at("/jo", 0), { text: "/join ", cursor: 6 });
  assertEquals(at("see #b and", 1, 6), { text: "see #busy and", cursor: 9 });
  // An emoji at the start of a line is not a nick addressed.
  const withEmoji = (text: string) =>
    applyCompletion(
      choosePopup(text, text.length, popupFor(text, text.length, [], [], [], EMOJI)!, 0),
    );
  assertEquals(withEmoji(":tada"), { text: "🎉 ", cursor: 3 });
  assertEquals(withEmoji("so :tada"), { text: "so 🎉 ", cursor: 6 });
});

Deno.test("title: the open conversation and the unread mentions, muted ones left out", () => {
  const key = (cid: string, conv: string) => `${cid}\u0000${conv}`;
  const convs = {
    [key("irc", "#busy")]: { name: "#busy" },
    [key("irc", "#news")]: { name: "#news", notify: "muted" },
    [key("irc", "")]: { name: "irc.example" },
  };
  const mentions = { [key("irc", "#busy")]: 2, [key("irc", "#news")]: 5 };
  assertEquals(tabTitle("/chat/irc/%23busy", convs, mentions, key), "(2) #busy - Parley");
  assertEquals(tabTitle("/chat/irc/%23busy", convs, {}, key), "#busy - Parley");
  assertEquals(tabTitle("/chat/irc", convs, {}, key), "irc.example - Parley");
  assertEquals(tabTitle("/chat/notifications", convs, mentions, key), "(2) Notifications - Parley");
  assertEquals(tabTitle("/settings/account", convs, {}, key), "Account - Parley");
  assertEquals(tabTitle("/chat", convs, {}, key), "Parley");
  assertEquals(tabTitle("/chat", convs, { [key("irc", "#busy")]: 1000 }, key), "(999+) Parley");
});
