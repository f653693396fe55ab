import { startPostgres } from "./tests/support/postgres.ts";
const pg = await startPostgres({ sharedBuffers: "512MB", maxConnections: 100 });
await Deno.writeTextFile("/tmp/pgkeep.url", pg.url);
console.log(pg.url);
await new Promise(() => {});
