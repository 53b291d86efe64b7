// What a promise rejected with, checked to be of the expected class: for asserting on a refusal's fields.
export async function rejectionOf<E extends Error>(
  promise: Promise<unknown>,
  type: abstract new (...args: never[]) => E,
): Promise<E> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!(error instanceof type)) throw new Error(`expected a ${type.name}, got ${String(error)}`);
  return error;
}
