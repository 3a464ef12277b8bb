export * from '@iot/contracts/ports/event-store.ts';
