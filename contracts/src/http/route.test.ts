import { describe, expect, it } from 'vitest';
import { routes } from '../routes.ts';
import { queryText, urlOf } from './route.ts';

describe('urlOf', () => {
  it('puts a route’s query on its path as a URL carries it', () => {
    const at = new Date(Date.UTC(2026, 0, 2, 3, 4, 5));
    expect(urlOf(routes['device.list'], { page: 2, sn: 'A B&C', groupId: undefined, stationId: null })).toBe(
      '/api/iot/device?page=2&sn=A+B%26C',
    );
    expect(urlOf(routes['device.asOf'], { id: 'd1', at })).toBe('/api/iot/device/asOf?id=d1&at=2026-01-02T03%3A04%3A05.000Z');
    expect(urlOf(routes['device.count'])).toBe('/api/iot/device/count');
  });

  it('keeps an empty value (the server decides what it means) and joins a list with commas', () => {
    expect(queryText({ name: '', ids: ['a', 'b'], on: false })).toEqual({ name: '', ids: 'a,b', on: 'false' });
  });
});
