import type { DomainEvent } from '../event.ts';
import type { CameraFields } from './model.ts';

/** What can happen to a camera: registered, edited, deleted. Stream `camera-<tenant>.<id>`. */
export type CameraEvent =
  | DomainEvent<'CameraRegistered', CameraFields & { cameraId: string }>
  | DomainEvent<'CameraUpdated', CameraFields & { cameraId: string }>
  | DomainEvent<'CameraDeleted', { cameraId: string }>;
export type CameraEventType = CameraEvent['type'];
