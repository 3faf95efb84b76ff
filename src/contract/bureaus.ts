/**
 * The bureaus, as the construct, the functions and the local runner see them: the domain's registry (one entry per
 * bureau, with its defaults), exposed here so that the construct reads only the contract.
 */
export {
  BUREAUS,
  type Bureau,
  type BureauSettings,
  isBureau,
  perBureau,
} from '../domain/bureau/index.ts';
