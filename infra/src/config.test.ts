import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, parseRole } from './config.ts';

describe('loadConfig', () => {
  it('gives the embedded defaults when nothing is set', () => {
    const config = loadConfig({});
    expect(config.PORT).toBe(8080);
    expect(config.MQTT_PORT).toBe(1883);
    expect(config.DATA_DIR).toBe('./data');
    expect(config.DATABASE_URL).toBeUndefined();
  });

  it('stops with a message naming the variable when a value is wrong', () => {
    expect(() => loadConfig({ PORT: '99999' })).toThrow(/PORT/);
    expect(() => loadConfig({ DATABASE_URL: 'mysql://x' })).toThrow(/DATABASE_URL/);
    expect(() => loadConfig({ KAFKA_BROKERS: 'not a broker' })).toThrow(/KAFKA_BROKERS/);
    expect(() => loadConfig({ ADMIN_PASSWORD: '123' })).toThrow(ConfigError);
    expect(() => loadConfig({ OUTBOUND_ALLOW_CIDRS: '10.0.0.0/8,intranet' })).toThrow(/OUTBOUND_ALLOW_CIDRS/);
    expect(loadConfig({ OUTBOUND_ALLOW_CIDRS: '10.0.0.0/8, fd00::/8,192.0.2.1' }).OUTBOUND_ALLOW_CIDRS).toBe(
      '10.0.0.0/8, fd00::/8,192.0.2.1',
    );
  });

  it('reads the role from the command line', () => {
    expect(parseRole([])).toBe('all');
    expect(parseRole(['--role', 'projections'])).toBe('projections');
    expect(parseRole(['--role=api'])).toBe('api');
    expect(() => parseRole(['--role', 'web'])).toThrow(/--role/);
  });
});
