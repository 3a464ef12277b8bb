import { describe, expect, it } from 'vitest';
import { chdbMemoryArgs } from './chdb.ts';

describe('chDB memory bounds', () => {
  it('bounds the engine and its caches for a small VM by default', () => {
    expect(chdbMemoryArgs()).toEqual([
      `--max_server_memory_usage=${1024 * 2 ** 20}`,
      `--mark_cache_size=${64 * 2 ** 20}`,
      '--uncompressed_cache_size=0',
      `--primary_index_cache_size=${32 * 2 ** 20}`,
      `--index_mark_cache_size=${32 * 2 ** 20}`,
    ]);
  });

  it('takes each bound given, leaves ClickHouse its own default for 0, and the defaults for the ones not given', () => {
    expect(chdbMemoryArgs({ maxServerMemoryMb: 0, markCacheMb: 16, indexCacheMb: undefined })).toEqual([
      `--mark_cache_size=${16 * 2 ** 20}`,
      '--uncompressed_cache_size=0',
      `--primary_index_cache_size=${32 * 2 ** 20}`,
      `--index_mark_cache_size=${32 * 2 ** 20}`,
    ]);
  });
});
