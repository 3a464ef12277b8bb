import type { DomainEvent } from '../event.ts';
import type { DiagramFields } from './model.ts';

/** What can happen to a configuration diagram: created, saved, deleted. Stream `diagram-<tenant>.<id>`. */
export type DiagramEvent =
  | DomainEvent<'DiagramCreated', DiagramFields & { diagramId: string }>
  | DomainEvent<'DiagramSaved', DiagramFields & { diagramId: string }>
  | DomainEvent<'DiagramDeleted', { diagramId: string }>;
export type DiagramEventType = DiagramEvent['type'];
