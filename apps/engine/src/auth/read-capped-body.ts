// Reads a response body up to a size, for answers of a server the engine does not control (a
// tenant's OIDC issuer): a larger one is a failure, and the read stops there instead of buffering it.

export class ResponseTooLargeError extends Error {
  override name = 'ResponseTooLargeError';
}

export async function readCappedBody(response: Response, maxBytes: number, what: string): Promise<Buffer> {
  const tooLarge = () => new ResponseTooLargeError(`${what} is larger than ${maxBytes} bytes`);
  if (Number(response.headers.get('content-length')) > maxBytes) {
    await response.body?.cancel();
    throw tooLarge();
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  // Leaving the loop by a throw cancels the stream, so the rest is never read.
  for await (const chunk of response.body ?? []) {
    size += chunk.byteLength;
    if (size > maxBytes) throw tooLarge();
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}
