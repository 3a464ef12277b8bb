/** One line of `npm run bench`: a figure and, measured in the same run, the limit it is compared with. */
export interface Figure {
  bench: string;
  value: number;
  unit: string;
  limit: number;
  limit_of: string;
  [extra: string]: unknown;
}
