import { request } from 'node:http';
import { routes } from '@iot/contracts';

/** A tus 1.0.0 client by hand: each step of the protocol as one request, so a test can cut one in the middle. */
export function tusClient(base: string, token: string, path: string = routes['file.upload'].path) {
  const headers = (more: Record<string, string> = {}) => ({ 'tus-resumable': '1.0.0', authentication: token, ...more });
  const metadataOf = (meta: Record<string, string>) =>
    Object.entries(meta)
      .map(([k, v]) => (v === '' ? k : `${k} ${Buffer.from(v).toString('base64')}`))
      .join(',');
  return {
    /** POST: creates an upload of `length` bytes; answers the response (Location on 201). */
    create: (length: number, meta: Record<string, string>) =>
      fetch(`${base}${path}`, {
        method: 'POST',
        headers: headers({ 'upload-length': String(length), 'upload-metadata': metadataOf(meta) }),
      }),
    /** HEAD: where the server's copy ends. */
    offset: async (location: string) => {
      const r = await fetch(`${base}${location}`, { method: 'HEAD', headers: headers() });
      return { status: r.status, offset: Number(r.headers.get('upload-offset')) };
    },
    /** PATCH: bytes from `offset`. */
    patch: (location: string, offset: number, bytes: Uint8Array) =>
      fetch(`${base}${location}`, {
        method: 'PATCH',
        headers: headers({ 'upload-offset': String(offset), 'content-type': 'application/offset+octet-stream' }),
        body: bytes,
      }),
    /**
     * A PATCH whose connection drops after `sent` of its `bytes` have gone out (a browser closed, a network lost):
     * resolves once the server has seen the socket close.
     */
    patchCut: (location: string, offset: number, bytes: Uint8Array, sent: number) =>
      new Promise<void>((resolve) => {
        const url = new URL(`${base}${location}`);
        const req = request(url, {
          method: 'PATCH',
          headers: headers({
            'upload-offset': String(offset),
            'content-type': 'application/offset+octet-stream',
            'content-length': String(bytes.byteLength),
          }),
        });
        req.on('error', () => resolve());
        req.on('close', () => resolve());
        req.write(bytes.subarray(0, sent), () => setImmediate(() => req.destroy()));
      }),
  };
}
