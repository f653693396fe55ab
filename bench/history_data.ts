/** Realistic chat for benchmarks: Zipf-distributed words, many conversations and senders. */

/** A seeded pseudo-random generator (mulberry32), so runs are comparable. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// English letter frequencies (per mille), so that word prefixes are as varied as in real text.
const LETTERS = "etaoinshrdlcumwfgypbvkjxqz";
const WEIGHTS = [
  127,
  91,
  82,
  75,
  70,
  67,
  63,
  61,
  60,
  43,
  40,
  28,
  28,
  24,
  24,
  22,
  20,
  20,
  19,
  15,
  10,
  8,
  2,
  2,
  1,
  1,
];

/** A vocabulary of `size` distinct made-up words (2 to 10 letters), most frequent first. */
export function vocabulary(size: number, random: () => number): string[] {
  const common = [
    "the",
    "a",
    "to",
    "is",
    "it",
    "and",
    "i",
    "you",
    "that",
    "in",
    "of",
    "for",
    "on",
    "ok",
    "yes",
  ];
  const total = WEIGHTS.reduce((a, b) => a + b, 0);
  const letter = () => {
    let x = random() * total;
    for (let i = 0; i < WEIGHTS.length; i++) if ((x -= WEIGHTS[i]) < 0) return LETTERS[i];
    return "e";
  };
  const words = new Set(common);
  while (words.size < size) {
    const n = 2 + Math.floor(random() * random() * 9) + Math.floor(random() * 3);
    let w = "";
    for (let i = 0; i < n; i++) w += letter();
    words.add(w);
  }
  return [...words];
}

/** Draws word indexes with a Zipf (s = 1) distribution over `n` ranks. */
export function zipf(n: number, random: () => number): () => number {
  const cdf = new Float64Array(n);
  let sum = 0;
  for (let i = 0; i < n; i++) cdf[i] = sum += 1 / (i + 1);
  return () => {
    const x = random() * sum;
    let lo = 0, hi = n - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cdf[mid] < x) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
}

/** A message text of 3 to 20 words. */
export function sentence(words: string[], draw: () => number, random: () => number): string {
  const n = 3 + Math.floor(random() * 18);
  const out: string[] = [];
  for (let i = 0; i < n; i++) out.push(words[draw()]);
  return out.join(" ");
}
