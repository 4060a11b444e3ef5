// Runs tasks of the same key one after another, in the order they were handed in; different keys run side by side.

/**
 * A keyed serializer: `run(key, task)` starts `task` once every task handed in earlier
 * under the same key has settled (fulfilled or rejected: one failure does not stop the
 * ones behind it), and returns its result. `pending()` counts the keys with a task
 * running or waiting; a key's entry is dropped when its last task settles.
 */
export function serializeByKey(): {
  run<T>(key: string, task: () => Promise<T>): Promise<T>;
  pending(): number;
} {
  const tails = new Map<string, Promise<unknown>>();
  return {
    run(key, task) {
      // A tail never rejects (see below), so `task` runs once the one before has settled.
      const result = (tails.get(key) ?? Promise.resolve()).then(task);
      const tail: Promise<unknown> = result.then(
        () => undefined,
        () => undefined,
      );
      tails.set(key, tail);
      void tail.then(() => {
        if (tails.get(key) === tail) tails.delete(key);
      });
      return result;
    },
    pending: () => tails.size,
  };
}
