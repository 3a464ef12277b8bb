import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { z } from 'zod';
import { channelMessages, type ChannelSpec } from '@iot/contracts/http/channel.ts';
import type { Lookups } from '@iot/contracts/ports/lookups.ts';
import type { Principal } from '@iot/contracts/http/principal.ts';
import { registerChannels, type ChannelHub } from './channels.ts';

/**
 * The websocket hub's frames: a batch channel sends each listener the messages of one tick in one frame (an array when
 * there are several), another channel one frame a message; a listener of another tenant hears neither.
 */
const message = z.object({ n: z.number().int() });
const specs: Record<string, ChannelSpec> = {
  batched: { path: '/ws/batched', permission: 'public', scope: 'tenant', summary: 'batched', message, batch: true },
  single: { path: '/ws/single', permission: 'public', scope: 'tenant', summary: 'one frame a message', message },
};

const app = Fastify();
let hub: ChannelHub;
let base: string;
const sockets: WebSocket[] = [];

/** A listener of `path` as the tenant in its `tenant` header: the frames it gets, as they come. */
async function listen(path: string, tenant: string) {
  const frames: string[] = [];
  const socket = new WebSocket(`${base}${path}`, { headers: { tenant } });
  sockets.push(socket);
  socket.on('message', (data) => frames.push(String(data)));
  await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
  return frames;
}

beforeAll(async () => {
  // The route table's access control stands aside here: the principal is the tenant the listener names.
  app.decorateRequest('principal', null);
  app.addHook('onRequest', async (request) => {
    (request as unknown as { principal: Principal }).principal = { tenantId: String(request.headers.tenant) } as Principal;
  });
  hub = await registerChannels(app, specs, {} as Lookups);
  base = (await app.listen({ port: 0, host: '127.0.0.1' })).replace('http', 'ws');
});
afterAll(async () => {
  for (const socket of sockets) socket.close();
  await app.close();
});

describe('the websocket hub', () => {
  it("sends a batch channel's messages of one tick in one frame, and another channel's one frame each", async () => {
    const batched = await listen('/ws/batched', 'alpha');
    const single = await listen('/ws/single', 'alpha');
    const other = await listen('/ws/batched', 'beta');
    await expect.poll(() => hub.listeners('batched') + hub.listeners('single')).toBe(3);

    for (const n of [1, 2, 3]) {
      hub.publish('batched', { tenantId: 'alpha' }, { n });
      hub.publish('single', { tenantId: 'alpha' }, { n });
    }
    await expect.poll(() => single.length).toBe(3);
    await expect.poll(() => batched.length).toBe(1);
    expect(batched[0]).toBe('[{"n":1},{"n":2},{"n":3}]');
    expect(single).toEqual(['{"n":1}', '{"n":2}', '{"n":3}']);

    // A lone message of a tick is a frame of its own, as on any channel.
    hub.publish('batched', { tenantId: 'alpha' }, { n: 4 });
    await expect.poll(() => batched.length).toBe(2);
    expect(batched.flatMap(channelMessages)).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }, { n: 4 }]);
    // A tick of many messages is cut into frames of 500: a long turn of the event loop holds none back past that.
    for (let n = 0; n < 600; n += 1) hub.publish('batched', { tenantId: 'alpha' }, { n });
    await expect.poll(() => batched.length).toBe(4);
    expect(batched.slice(2).map((frame) => channelMessages(frame).length)).toEqual([500, 100]);

    // The other tenant's own message comes after alpha's on its socket: a leak of alpha's would have come first.
    hub.publish('batched', { tenantId: 'beta' }, { n: 5 });
    await expect.poll(() => other.length).toBe(1);
    expect(other).toEqual(['{"n":5}']);
  });
});
