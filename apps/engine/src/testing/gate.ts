// A promise the test settles, to hold a fake's answer while it looks at what happened meanwhile.
export type Gate = { gate: Promise<void>; release: () => void };

export function hold(): Gate {
  let release: () => void = () => {};
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  return { gate, release };
}
