/**
 * Times come from the wall clock at each moment, not from the clock at start plus the time since:
 * a board without a real-time clock boots with a wrong date that NTP sets minutes later, and a
 * daemon started before that must not keep the wrong date for every message until it restarts.
 * The daemon runs with libfaketime, which moves its wall clock (and only that) while it runs.
 */
import { assert } from "../support/assert.ts";
import type { RawIrcClient } from "../support/irc_client.ts";
import { inChannel } from "../support/in_channel.ts";
import { startIrcServer } from "../support/ngircd.ts";
import { startServer } from "../support/server.ts";
import { poll } from "../support/poll.ts";
import { ensureTools, LIBFAKETIME } from "../../scripts/system_deps.ts";

const DAY_MS = 86_400_000;

Deno.test("a message is stored at the wall clock's time after the clock was set", async () => {
  const [preload] = await ensureTools([LIBFAKETIME]);
  const dir = await Deno.makeTempDir({ prefix: "parley-clock-" });
  const offset = `${dir}/offset`;
  await Deno.writeTextFile(offset, "+0\n");
  const irc = await startIrcServer();
  const server = await startServer({
    env: {
      LD_PRELOAD: preload,
      FAKETIME_TIMESTAMP_FILE: offset,
      // Read the offset again at most every second; the monotonic clock stays the real one.
      FAKETIME_CACHE_DURATION: "1",
      DONT_FAKE_MONOTONIC: "1",
    },
  });
  let bob: RawIrcClient | undefined;
  try {
    const joined = await inChannel(server.url, irc, "clock@example.com", "#clock");
    const { api, cid } = joined;
    bob = joined.bob;
    // NTP sets the clock a day ahead (the file replaced whole: libfaketime never reads half).
    await Deno.writeTextFile(`${offset}.new`, "+1d\n");
    await Deno.rename(`${offset}.new`, offset);
    // libfaketime reads the offset again once its cache is a second old, on a loaded machine
    // later: lines are said until one is stored (one a day ahead, or 20 at most).
    const path = `/api/connection/${cid}/conversation/%23clock/messages?limit=10`;
    let ahead = 0;
    let stored = "";
    for (let i = 1; i <= 20 && ahead < DAY_MS / 2; i++) {
      const text = `after the clock was set ${i}`;
      await bob.send(`PRIVMSG #clock :${text}`);
      stored = await poll(`line ${i} stored`, async () => {
        const messages = (await api.get(path)).body.messages as { message: string; ts: string }[];
        return messages.find((m) => m.message === text)?.ts;
      });
      ahead = Date.parse(stored) - Date.now();
      if (ahead < DAY_MS / 2) await new Promise((r) => setTimeout(r, 500));
    }
    assert(
      Math.abs(ahead - DAY_MS) < 10 * 60_000,
      `stored at ${stored}: ${(ahead / 3600_000).toFixed(2)} h from the real time, not 24 h`,
    );
  } finally {
    await bob?.close();
    await server.close();
    await irc.close();
    await Deno.remove(dir, { recursive: true });
  }
});
