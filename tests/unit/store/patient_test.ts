/**
 * The patient view of the store: a call that meets a database not answering waits for it and is
 * made again; any other failure, and one the store gives up on, reaches the caller as it was.
 */
import { assertEquals, assertRejects } from "../../support/assert.ts";
import { patientStore } from "../../../store/patient.ts";
import type { Store } from "../../../store/mod.ts";

const AWAY = new Error("away");

type Conversations = {
  generation: number;
  get(id: number): Promise<{ id: number }>;
  broken(): Promise<void>;
  now(): string;
  query(id: number): PromiseLike<{ id: number }>;
};

/** A store of two groups; `answers` is what recovery's wait resolves with (undefined: never). */
function fakeStore() {
  let answered: (ok: boolean) => void = () => {};
  let generation = 1;
  const calls: string[] = [];
  let failures = 0;
  const conversations = {
    get generation() {
      return generation;
    },
    get(id: number) {
      calls.push(`get ${id}`);
      return failures-- > 0 ? Promise.reject(AWAY) : Promise.resolve({ id });
    },
    broken() {
      calls.push("broken");
      return Promise.reject(new Error("a bad row"));
    },
    now: () => "sync",
    /** A query object a method may return as it is: a thenable, not a Promise. */
    query(id: number): PromiseLike<{ id: number }> {
      calls.push(`query ${id}`);
      const fails = failures-- > 0;
      return {
        then: (ok, bad) => (fails ? Promise.reject(AWAY) : Promise.resolve({ id })).then(ok, bad),
      };
    },
  };
  const messages = {
    append() {
      calls.push("append");
      return Promise.reject(AWAY);
    },
  };
  const store = {
    conversations,
    messages,
    backend: { name: "fake" },
    recovery: (err: unknown) =>
      err === AWAY
        ? {
          retry: new Promise<boolean>((resolve) => answered = resolve),
          waitingFor: "the database to answer",
        }
        : undefined,
  } as unknown as Store;
  const patient = patientStore(store);
  return {
    store,
    /** The patient view of it, and its conversations as the fake has them. */
    patient,
    conversations: patient.conversations as unknown as Conversations,
    calls,
    fail: (n: number) => failures = n,
    answer: (ok: boolean) => answered(ok),
    bump: () => generation++,
  };
}

Deno.test("a call that meets the outage is made again once the database answers", async () => {
  const f = fakeStore();
  const { conversations } = f;
  f.fail(1);
  const got = conversations.get(7);
  await new Promise((r) => setTimeout(r, 10));
  assertEquals(f.calls, ["get 7"], "waits, not tried again before the database answers");
  f.answer(true);
  assertEquals(await got, { id: 7 });
  assertEquals(f.calls, ["get 7", "get 7"]);
});

Deno.test("a thenable that meets the outage waits the same way", async () => {
  const f = fakeStore();
  const { conversations } = f;
  f.fail(1);
  const got = conversations.query(3);
  await new Promise((r) => setTimeout(r, 10));
  f.answer(true);
  assertEquals(await got, { id: 3 });
  assertEquals(f.calls, ["query 3", "query 3"]);
});

Deno.test("a store closing first, and any other failure, reach the caller", async () => {
  const f = fakeStore();
  const { conversations } = f;
  f.fail(1);
  const got = conversations.get(1);
  await new Promise((r) => setTimeout(r, 0));
  f.answer(false);
  assertEquals((await assertRejects(() => got)).message, "away");
  assertEquals((await assertRejects(() => conversations.broken())).message, "a bad row");
  assertEquals(f.calls, ["get 1", "broken"]);
});

Deno.test("fields read through, sync results pass, and the messages' append is left as it is", async () => {
  const f = fakeStore();
  const { patient, conversations } = f;
  assertEquals(conversations.generation, 1);
  f.bump();
  assertEquals(conversations.generation, 2, "the group's own field, live");
  assertEquals(conversations.now(), "sync");
  assertEquals(patient.backend, f.store.backend);
  // deno-lint-ignore no-explicit-any -- the fake's append takes nothing
  assertEquals((await assertRejects(() => (patient.messages as any).append())).message, "away");
  assertEquals(f.calls, ["append"]);
});
