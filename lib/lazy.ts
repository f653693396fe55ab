/**
 * A module loaded the first time it is needed. The daemon's idle memory is mostly code: each npm
 * package it imports at start stays parsed (its source text, its compiled functions, the Node
 * built-ins it pulls in) whether or not anyone ever uploads a file or subscribes to push. Such
 * packages are loaded on first use instead (docs/performance.md, "Idle memory").
 */

/** Returns a function that loads once and hands out the same promise; a failed load is retried. */
export function lazy<T>(load: () => Promise<T>): () => Promise<T> {
  let loading: Promise<T> | undefined;
  return () =>
    loading ??= load().catch((err) => {
      loading = undefined;
      throw err;
    });
}
