export * from '@iot/contracts/ports/notifier.ts';
