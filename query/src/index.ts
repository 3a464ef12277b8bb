import { userQueryHandlers } from './user/handlers.ts';

/** The read side's handlers, one per read route of the route table. */
export const queryHandlers = {
  ...userQueryHandlers,
};
