/** The thread of tests/unit/lib/thread_priority_test.ts: lowers itself and says so, then waits. */
/// <reference lib="deno.worker" />
import { lowerThreadPriority } from "../../lib/thread_priority.ts";

self.postMessage(lowerThreadPriority());
