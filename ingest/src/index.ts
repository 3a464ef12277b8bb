export * from './topics.ts';
export * from './payload.ts';
export * from './validate.ts';
export * from './registry.ts';
export * from './presence.ts';
export * from './intake.ts';
export * from './tables.ts';
export * from './thingsboard.ts';
