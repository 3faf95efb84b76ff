/**
 * The ids of the bureaus the pipeline can query: the one list the registry (bureau-registry.ts) gives an entry
 * each, and the only place besides the wire adapters, the normaliser and the emulator that spells them.
 */
export const BUREAUS = ['a', 'b'] as const;
export type Bureau = (typeof BUREAUS)[number];
