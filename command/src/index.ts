import { userHandlers } from './user/handlers.ts';

/** The write side's handlers, one per write route of the route table. */
export const commandHandlers = {
  ...userHandlers,
};

/** The commands that workflows and reactors may dispatch, by type (bound to the dispatch port in infra/). */
export function commandDispatchers(_ports: Omit<import('@iot/contracts/http/handler.ts').Ports, 'dispatch'>) {
  return {};
}
