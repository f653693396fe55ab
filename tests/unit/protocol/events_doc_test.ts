/**
 * docs/events.md says what protocol/events.ts declares: the same pushed events with the same fields,
 * the same `state` types, requests and answers. Adding an event or a field to one and not the
 * other fails here.
 */
import { assert, assertEquals } from "../../support/assert.ts";
import { LINE_KINDS } from "../../../protocol/events.ts";
import { REQUESTS } from "../../../protocol/event_requests.ts";

const root = new URL("../../../", import.meta.url);
const source = await Deno.readTextFile(new URL("protocol/events.ts", root));
const docs = await Deno.readTextFile(new URL("docs/events.md", root));

/** Fields each `extends` adds, besides the discriminants (`event`, `type`). */
const INHERITED: Record<string, string[]> = {
  Where: ["connection_id", "conversation_id"],
  State: ["connection_id"],
};

interface Declared {
  name: string;
  event?: string;
  stateType?: string;
  fields: Set<string>;
  open: boolean;
}

/** The interfaces of protocol/events.ts, read from its regular layout (one field per line). */
function interfaces(): Map<string, Declared> {
  const out = new Map<string, Declared>();
  const re = /^(?:export )?interface (\w+)(?:<[^>]*>)?(?: extends ([^{]+))? \{\n([\s\S]*?)^\}/gm;
  for (const [, name, ext = "", body] of source.matchAll(re)) {
    const fields = new Set<string>();
    let stateType: string | undefined;
    for (const part of ext.split(/,\s*/).map((p) => p.trim()).filter(Boolean)) {
      const state = /^State<"(\w+)">$/.exec(part);
      if (state) stateType = state[1];
      for (const f of INHERITED[state ? "State" : part] ?? []) fields.add(f);
    }
    for (const [, field] of body.matchAll(/^ {2}(\w+)\??:/gm)) fields.add(field);
    const event = /^ {2}event: "(\w+)";/m.exec(body)?.[1] ?? (stateType ? "state" : undefined);
    fields.delete("event");
    out.set(name, { name, event, stateType, fields, open: /^ {2}\[/m.test(body) });
  }
  return out;
}

/** The member names of an exported union type. */
function union(name: string): string[] {
  const m = new RegExp(`^(?:export )?type ${name} =([\\s\\S]*?);`, "m").exec(source);
  assert(m, `protocol/events.ts declares ${name}`);
  return [...m[1].matchAll(/\|\s*(\w+)/g)].map((x) => x[1]);
}

/** The part of docs/events.md under a heading, up to the next heading of that level or above. */
function section(heading: string): string {
  const level = heading.indexOf(" ");
  const start = docs.indexOf(`\n${heading}\n`);
  assert(start >= 0, `docs/events.md has "${heading}"`);
  const rest = docs.slice(start + heading.length + 2);
  const end = rest.search(new RegExp(`^#{1,${level}} `, "m"));
  return end < 0 ? rest : rest.slice(0, end);
}

const declared = interfaces();
const byName = (n: string) => {
  const d = declared.get(n);
  assert(d, `protocol/events.ts declares interface ${n}`);
  return d;
};

Deno.test("events doc: every pushed event has a section whose example has exactly its fields", () => {
  const pushed = union("PushedEvent").filter((n) => n !== "StateEvent").map(byName);
  const pushedSection = section("## Pushed events (server -> client)");
  const headings = [...pushedSection.matchAll(/^### `(\w+)`$/gm)].map((m) => m[1]);
  assertEquals(
    headings.filter((h) => h !== "state").sort(),
    pushed.map((d) => d.event!).sort(),
    "the documented pushed events are the declared ones",
  );
  for (const d of pushed) {
    const text = section(`### \`${d.event}\``);
    const json = /```json\n([\s\S]*?)```/.exec(text);
    assert(json, `docs/events.md shows an example of ${d.event}`);
    const example = JSON.parse(json[1]);
    assertEquals(example.event, d.event);
    assertEquals(
      Object.keys(example).filter((k) => k !== "event").sort(),
      [...d.fields].sort(),
      `the fields of ${d.event} (${d.name})`,
    );
  }
});

Deno.test("events doc: the state table has every state type with its fields", () => {
  const states = union("StateEvent").map(byName);
  const table = section("### `state`");
  const rows = new Map<string, Set<string>>();
  for (const [, type, fieldsCell] of table.matchAll(/^\| `(\w+)`[^|]*\|([^|]*)\|/gm)) {
    const set = rows.get(type) ?? new Set<string>();
    for (const [, f] of fieldsCell.matchAll(/`(\w+)`/g)) set.add(f);
    rows.set(type, set);
  }
  assertEquals([...rows.keys()].sort(), states.map((d) => d.stateType!).sort());
  for (const d of states) {
    if (d.open) continue; // `info` carries the connection's info fields, whatever they are
    const fields = [...d.fields].filter((f) => f !== "type" && f !== "connection_id");
    assertEquals([...rows.get(d.stateType!)!].sort(), fields.sort(), `state ${d.stateType}`);
  }
});

Deno.test("events doc: every request method and every answer is described", () => {
  const requests = section("## Requests (client -> server)");
  for (const [method, schema] of Object.entries(REQUESTS)) {
    assert(schema.shape.method.safeParse(method).success, `${method} is its method`);
    assert(
      new RegExp(`^\\| \`${method}\` +\\|`, "m").test(requests),
      `the requests table has ${method}`,
    );
  }
  const pushed = new Set(union("PushedEvent").map((n) => declared.get(n)?.event));
  // The bus's own (in TapEvent and BusEvent beside PushedEvent): never sent on a socket.
  const tapOnly = new Set(
    [...union("TapEvent"), ...union("BusEvent")].map((n) => declared.get(n)?.event),
  );
  assert(tapOnly.has("listeners") && tapOnly.has("detach"), "the taps' own events are read");
  for (const [, event] of source.matchAll(/\bevent: "(\w+)"/g)) {
    if (tapOnly.has(event) || pushed.has(event)) continue;
    assert(docs.includes(`"event": "${event}"`), `docs/events.md shows the ${event} frame`);
  }
});

Deno.test("events doc: the table of lines is LINE_KINDS, row for row", () => {
  const table = section("## Lines in a conversation");
  const rows = [...table.matchAll(/^\| `(\w+)` +\| ([^|]+?) +\| `(\w+)` +\|$/gm)].map(
    ([, type, live, look]) => [type, live.replaceAll("`", ""), look],
  );
  const declared = Object.entries(LINE_KINDS).map(([type, k]) => [
    type,
    k.live === "message" ? "message" : `state ${k.live}`,
    k.look,
  ]);
  assertEquals(rows, declared);
  // Each live state event is one the state table documents.
  const states = union("StateEvent").map((n) => byName(n).stateType);
  for (const k of Object.values(LINE_KINDS)) {
    assert(k.live === "message" || states.includes(k.live), `${k.live} is a state type`);
  }
});
