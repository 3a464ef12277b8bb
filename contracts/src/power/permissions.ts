/**
 * Permission strings of the power area's energy statistics and price schedules: interfaces and buttons under
 * Data analysis → Business statistics (reading them needs the screen's query, changing a schedule its price button).
 */
export const powerPerm = {
  statistics: 'analysis:business:list',
  export: 'analysis:business:export',
  price: 'analysis:business:price',
} as const;
