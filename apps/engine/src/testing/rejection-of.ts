/** The error `promise` rejects with, checked to be a `type`; a promise that resolves, or rejects otherwise, fails the test. */
export async function rejectionOf<E>(
  promise: Promise<unknown>,
  type: abstract new (...args: never[]) => E,
): Promise<E> {
  const outcome = await promise.then(
    (value: unknown) => ({ resolved: value }),
    (reason: unknown) => ({ rejected: reason }),
  );
  if ('resolved' in outcome) throw new Error(`expected a ${type.name}, but the promise resolved`);
  if (!(outcome.rejected instanceof type)) throw new Error(`expected a ${type.name}, got ${String(outcome.rejected)}`);
  return outcome.rejected;
}
