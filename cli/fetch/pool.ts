/**
 * Runs `fn` over `items` with at most `concurrency` in flight. One item failing does not stop
 * the others (a bad advisory must not cost the other thousand); failures are returned, and an
 * abort stops handing out new items.
 */
export interface PoolFailure<T> {
  item: T;
  error: unknown;
}

export async function runPool<T>(
  items: readonly T[],
  concurrency: number,
  fn: (item: T) => Promise<void>,
  signal?: AbortSignal,
): Promise<PoolFailure<T>[]> {
  const failures: PoolFailure<T>[] = [];
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      signal?.throwIfAborted();
      const item = items[next++]!;
      try {
        await fn(item);
      } catch (error) {
        if (signal?.aborted) throw error;
        failures.push({ item, error });
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, items.length)) }, worker));
  return failures;
}
