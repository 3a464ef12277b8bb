import type { Dispatch, DispatchMetadata, DispatchResult } from '@iot/contracts/ports/dispatch.ts';

/** A command handler as the dispatch port calls it. */
// Each dispatcher types its own command; the port checks only the type name.
export type CommandDispatcher = (command: any, metadata: DispatchMetadata) => Promise<DispatchResult>;

/** Binds the dispatch port to the command side's handlers, by command type. */
export function createDispatch(dispatchers: Record<string, CommandDispatcher>): Dispatch {
  return (command, metadata) => {
    const dispatcher = dispatchers[command.type];
    if (!dispatcher) throw new Error(`no command handler for ${command.type}`);
    return dispatcher(command, metadata);
  };
}
