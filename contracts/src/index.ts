export * from './envelope.ts';
export * from './errors.ts';
export * from './constants.ts';
export * from './event.ts';
export * from './auth/auth.ts';
export * from './tenant/tenant.ts';
export * from './identity/index.ts';
