/**
 * A size as people read it, the same wherever Parley shows one (the web client, the line a long
 * message is sent as): decimal units, as the server's limits are set (an upload of 40,000,000
 * bytes is "40 MB").
 */
export function formatSize(n: number): string {
  if (n < 999.5) return `${n} B`;
  const units = ["kB", "MB", "GB", "TB"];
  let v = n, i = -1;
  do {
    v /= 1000;
    i++;
  } while (v >= 999.5 && i < units.length - 1);
  return `${v < 10 ? +v.toFixed(1) : Math.round(v)} ${units[i]}`;
}
