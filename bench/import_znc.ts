/**
 * ZNC import speed: a ZNC data folder whose log module wrote PARLEY_BENCH_IMPORT lines (default
 * 1,000,000) in 20 channels, one file per channel and day (1,000 lines a day, in the default
 * format, some joins among them), imported by `parley import znc` in-process; the import itself
 * and the search indexing that follows are measured apart.
 */
import { ImportSession, SourceFolder } from "../import/common.ts";
import { importZnc } from "../import/znc.ts";
import { loadConfig } from "../config.ts";
import { logToStderr } from "../lib/log.ts";

const COUNT = Number(Deno.env.get("PARLEY_BENCH_IMPORT") ?? 1_000_000);
const CHANNELS = 20;
const PER_DAY = 1_000;
const WORDS = "the quick brown fox jumps over lazy dogs while parley keeps every line".split(" ");
logToStderr();
const dir = await Deno.makeTempDir({ prefix: "bench-znc-" });
const home = await Deno.makeTempDir({ prefix: "bench-import-" });
try {
  const chans = Array.from({ length: CHANNELS }, (_, i) => `#chan${i}`);
  await Deno.mkdir(`${dir}/configs`);
  await Deno.writeTextFile(
    `${dir}/configs/znc.conf`,
    `Version = 1.8.2
<User alice>
\tPass = plain#x
\tNick = alice
\tTimezone = Europe/Berlin
\t<Network net>
\t\tLoadModule = log
\t\tServer = irc.example.org +6697
${chans.map((c) => `\t\t<Chan ${c}>\n\t\t</Chan>`).join("\n")}
\t</Network>
</User>
`,
  );
  const logDir = `${dir}/users/alice/networks/net/moddata/log`;
  const pad = (n: number) => String(n).padStart(2, "0");
  let written = 0;
  let messages = 0;
  for (let c = 0; c < CHANNELS; c++) {
    await Deno.mkdir(`${logDir}/${chans[c]}`, { recursive: true });
    const lines = Math.ceil((COUNT - written) / (CHANNELS - c));
    for (let day = 0; day * PER_DAY < lines; day++) {
      const date = new Date(Date.UTC(2024, 0, 1) + day * 86_400_000).toISOString().slice(0, 10);
      let text = "";
      for (let k = 0; k < PER_DAY && day * PER_DAY + k < lines; k++) {
        const i = written + day * PER_DAY + k;
        const s = k * 86; // spread over the day
        const stamp = `[${pad(Math.floor(s / 3600))}:${pad(Math.floor(s / 60) % 60)}:${
          pad(s % 60)
        }]`;
        if (k % 50 === 49) {
          text += `${stamp} *** Joins: nick${i % 97} (u@host)\n`;
          continue;
        }
        const words = Array.from({ length: 8 }, (_, j) => WORDS[(i * 7 + j * 3) % WORDS.length]);
        text += `${stamp} <nick${i % 97}> ${words.join(" ")} ${i}\n`;
        messages++;
      }
      await Deno.writeTextFile(`${logDir}/${chans[c]}/${date}.log`, text);
    }
    written += lines;
  }

  const config = await loadConfig([], { PARLEY_HOME: home });
  const t0 = performance.now();
  const session = await ImportSession.open(config);
  await importZnc(session, await SourceFolder.open(dir), {
    emails: new Map(),
    domain: "example.org",
  });
  const t1 = performance.now();
  await session.finish(); // commits, then waits until the search index has every message
  const t2 = performance.now();
  if (session.summary.messages !== messages) {
    throw new Error(`imported ${session.summary.messages}`);
  }
  const rate = Math.round(COUNT / ((t1 - t0) / 1000));
  console.log(`import_znc_lines: ${COUNT} lines`);
  console.log(`import_znc_messages: ${messages} messages`);
  console.log(`import_znc_write: ${((t1 - t0) / 1000).toFixed(1)} s (${rate} lines/s)`);
  console.log(`import_znc_searchable: ${((t2 - t0) / 1000).toFixed(1)} s`);
} finally {
  await Deno.remove(dir, { recursive: true });
  await Deno.remove(home, { recursive: true });
}
