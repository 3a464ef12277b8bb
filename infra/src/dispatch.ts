import type { CommandDispatchers, Dispatch, DispatchedCommand, DispatchedType, DispatchMetadata } from '@iot/contracts/ports/dispatch.ts';

/** Binds the dispatch port to the command side's handlers, by command type. */
export function createDispatch(dispatchers: CommandDispatchers): Dispatch {
  // Generic over the type, so that the handler of a command's type is known to take that command.
  const run = <K extends DispatchedType>(command: DispatchedCommand<K>, metadata: DispatchMetadata) =>
    dispatchers[command.type](command, metadata);
  return run;
}
