import type { FileEvent, FileUploadFields } from '@iot/contracts';

export type { FileEvent };

export interface FileState {
  exists: boolean;
  deleted: boolean;
  storageKey: string | null;
  fields: FileUploadFields | null;
}

export const initialState: FileState = { exists: false, deleted: false, storageKey: null, fields: null };

export function evolve(state: FileState, event: FileEvent): FileState {
  switch (event.type) {
    case 'FileUploaded': {
      const { name, fileType, extensionType, version, declaration, storageKey } = event.data;
      return { exists: true, deleted: false, storageKey, fields: { name, fileType, extensionType, version, declaration } };
    }
    case 'FileDeleted':
      return { ...state, deleted: true };
    default:
      return state;
  }
}
