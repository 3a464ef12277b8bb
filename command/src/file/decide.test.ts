import { describe, expect, it } from 'vitest';
import { codeOf, scenario } from '../decider-testing.ts';
import { fileDecider } from './decide.ts';
import type { FileEvent } from './file.ts';

const file = {
  fileId: 'f1',
  name: 'fw.bin',
  fileType: 'upgrade',
  extensionType: 'CLI',
  version: '2.1.0',
  declaration: null,
  size: 1024,
  sha256: 'ab'.repeat(32),
  storageKey: 't1/f1',
  uploaderId: 'u1',
  uploader: 'boss',
} as const;
const uploaded: FileEvent = { type: 'FileUploaded', data: file };
const { given } = scenario(fileDecider);

describe('file decider', () => {
  it('records a finished upload once: the last PATCH retried records nothing more', () => {
    expect(given([]).when({ type: 'RecordUploadedFile', file })).toEqual([uploaded]);
    expect(given([uploaded]).when({ type: 'RecordUploadedFile', file })).toEqual([]);
  });

  it('deletes a file with its storage key, not one a running task uses, nor one not there', () => {
    expect(given([uploaded]).when({ type: 'DeleteFile', fileId: 'f1', inUse: false })).toEqual([
      { type: 'FileDeleted', data: { fileId: 'f1', storageKey: 't1/f1' } },
    ]);
    expect(codeOf(() => given([uploaded]).when({ type: 'DeleteFile', fileId: 'f1', inUse: true }))).toBe('FILE_IN_USE');
    expect(codeOf(() => given([]).when({ type: 'DeleteFile', fileId: 'f1', inUse: false }))).toBe('NOT_FOUND');
    const deleted: FileEvent = { type: 'FileDeleted', data: { fileId: 'f1', storageKey: 't1/f1' } };
    expect(codeOf(() => given([uploaded, deleted]).when({ type: 'DeleteFile', fileId: 'f1', inUse: false }))).toBe('NOT_FOUND');
  });
});
