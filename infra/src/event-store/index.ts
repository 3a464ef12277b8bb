export * from './port.ts';
export * from './upcasting.ts';
export { createPostgresEventStore } from './postgres.ts';
