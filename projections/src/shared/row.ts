/** An interface's fields as a plain object type: what the Sql port takes as a row type (an interface has no index signature). */
export type Fields<T> = { [K in keyof T]: T[K] };
