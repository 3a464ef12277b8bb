/** Read modules and query handlers read a stream as its aggregate's event union (contracts/src/ports/event-store.ts). */
export { readStreamOf } from '@iot/contracts/ports/event-store.ts';
