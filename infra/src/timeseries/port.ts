export * from '@iot/contracts/ports/timeseries.ts';
