/**
 * Runs a CountingReader on its own thread, so that the raw reader of a flood benchmark is not
 * slowed by the flooding client sharing its event loop. Messages in: `{port, nick, channel}` to
 * start, `"close"` to stop. Out: `{ready: true}`, then `{count, lastAt, dropped}` every 50 ms and
 * once more (with `closed: true`) after "close"; `lastAt` is epoch milliseconds.
 */
import { CountingReader } from "./flood.ts";

let reader: CountingReader | undefined;
const state = (closed = false) => ({
  count: reader?.count ?? 0,
  lastAt: reader ? performance.timeOrigin + reader.lastAt : 0,
  dropped: reader?.dropped ?? "",
  closed,
});
let timer: ReturnType<typeof setInterval> | undefined;

self.onmessage = async (e: MessageEvent) => {
  if (e.data === "close") {
    clearInterval(timer);
    await reader?.close();
    self.postMessage(state(true));
    self.close();
    return;
  }
  const { port, nick, channel } = e.data as { port: number; nick: string; channel: string };
  reader = await CountingReader.connect(port, nick, channel);
  self.postMessage({ ready: true });
  timer = setInterval(() => self.postMessage(state()), 50);
};
