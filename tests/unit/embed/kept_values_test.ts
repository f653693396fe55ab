/**
 * What a preview keeps of a page: its own copies of the title and description, not the page's
 * text they were read from (a cache of 1,000 answers would keep as many pages). 300 pages of
 * ~200 KB with titles that need no cleaning are read in a process of its own whose collector the
 * test runs (~60 MB of heap were kept before the values were copied).
 */
import { assert } from "../../support/assert.ts";
import { runScript } from "../../support/child_script.ts";

const METADATA = new URL("../../../embed/metadata.ts", import.meta.url).href;

const SCRIPT = `
import { fromPage, parseHtml } from ${JSON.stringify(METADATA)};
const kept = [];
for (let i = 0; i < 300; i++) {
  const html = "<html><head><title>TitleWithoutSpaces" + i + "</title>" +
    '<meta name="description" content="NoSpacesHereEither' + i + '">' +
    '<meta name="keywords" content="' + "k".repeat(200_000) + i + '"></head><body></body></html>';
  const base = new URL("https://example.com/page" + i);
  kept.push(fromPage(base, parseHtml(html, base)));
}
globalThis.gc();
console.log(JSON.stringify({
  title: kept[7].title,
  description: kept[7].description,
  heapMb: Deno.memoryUsage().heapUsed / 1e6,
}));
`;

Deno.test("a preview keeps its title and description, not the page they came from", async () => {
  const out = await runScript(SCRIPT, ["--expose-gc"]);
  assert(out.code === 0, out.stderr);
  const { title, description, heapMb } = JSON.parse(out.stdout);
  assert(title === "TitleWithoutSpaces7" && description === "NoSpacesHereEither7", title);
  assert(heapMb < 30, `${heapMb.toFixed(0)} MB of heap for 300 previews`);
});
