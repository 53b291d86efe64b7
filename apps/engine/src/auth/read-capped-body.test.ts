import { describe, expect, it } from '@jest/globals';
import { ResponseTooLargeError, readCappedBody } from './read-capped-body.js';

/** A response streamed in chunks, with no Content-Length to go by; counts the chunks pulled. */
function streamed(chunks: number, chunkBytes: number) {
  let pulled = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (pulled === chunks) controller.close();
      else {
        pulled++;
        controller.enqueue(new Uint8Array(chunkBytes).fill(120));
      }
    },
  });
  return { response: new Response(body), pulled: () => pulled };
}

describe('readCappedBody', () => {
  it('reads a body up to the cap', async () => {
    const { response } = streamed(4, 256);
    expect((await readCappedBody(response, 1024, 'the body')).length).toBe(1024);
  });

  it('stops reading a streamed body as soon as it passes the cap', async () => {
    const { response, pulled } = streamed(1000, 1024);
    await expect(readCappedBody(response, 4096, 'the body')).rejects.toThrow(ResponseTooLargeError);
    expect(pulled()).toBeLessThan(10);
  });

  it('refuses a declared Content-Length over the cap without reading', async () => {
    const response = new Response('x'.repeat(2048), { headers: { 'Content-Length': '2048' } });
    await expect(readCappedBody(response, 1024, 'the JWKS')).rejects.toThrow('the JWKS is larger than 1024 bytes');
  });
});
