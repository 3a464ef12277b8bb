import type { DomainEvent } from '@iot/contracts';
import type { Dispatch } from '@iot/contracts/ports/dispatch.ts';
import type { Workflow } from '@iot/command';
import { projection, type AnyProjection } from '@iot/projections/projection.ts';

/**
 * Runs a workflow beside the projections: the runner delivers its events in log order and moves its
 * checkpoint once every step of an event is done, so a crash re-delivers the event and the steps,
 * idempotent by their keys, apply once.
 */
export function workflowProjection<E extends DomainEvent>(
  workflow: Workflow<E>,
  dispatch: Dispatch,
  afterStep: (workflow: string, step: string) => Promise<void> | void = () => {},
): AnyProjection {
  return projection<E>({
    name: workflow.name,
    handles: workflow.handles,
    schema: 'select 1',
    tables: [],
    apply: (_tx, event) => workflow.react(event, { dispatch, afterStep: (step) => afterStep(workflow.name, step) }),
  });
}
