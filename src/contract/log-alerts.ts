/**
 * Log lines the construct's metric filters count, spelled where the code that writes them lives (the domain) and
 * re-exported here for the construct.
 */

export { SPENDING_CAP_ALERT } from '../domain/spend/index.ts';
