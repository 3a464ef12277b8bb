import { DomainError } from '@iot/contracts';
import { unreachable, type Decider } from '../decider.ts';
import { evolve, initialState, type FileEvent, type FileState } from './file.ts';

type Uploaded = Extract<FileEvent, { type: 'FileUploaded' }>['data'];

export type FileCommand = { type: 'RecordUploadedFile'; file: Uploaded } | { type: 'DeleteFile'; fileId: string; inUse: boolean };

export function decide(command: FileCommand, state: FileState): FileEvent[] {
  switch (command.type) {
    case 'RecordUploadedFile':
      // The last PATCH of an upload retried after its answer was lost records nothing twice.
      if (state.exists) return [];
      return [{ type: 'FileUploaded', data: command.file }];
    case 'DeleteFile':
      if (!state.exists || state.deleted || !state.storageKey) throw new DomainError('NOT_FOUND');
      if (command.inUse) throw new DomainError('FILE_IN_USE');
      return [{ type: 'FileDeleted', data: { fileId: command.fileId, storageKey: state.storageKey } }];
    default:
      return unreachable(command);
  }
}

export const fileDecider: Decider<FileCommand, FileEvent, FileState> = { initialState, evolve, decide };
export const fileStream = (tenantId: string, fileId: string) => `file-${tenantId}.${fileId}`;
