/** A document's financial picture in the emulator, and how it drifts from one epoch to the next. */
import { SeededRandom } from './seeded-random.ts';

/** The financial picture of a document, from which both bureaus' reports are drawn. */
export interface Profile {
  readonly score: number;
  readonly probability: 'percent' | 'number' | 'not calculated';
  readonly protests: number;
  readonly pendingDebts: number;
  readonly bouncedCheques: number;
  readonly stoppedCheques: number;
  /** The registration status has changed from the document's starting one (e.g. a company closed). */
  readonly statusChanged: boolean;
}

type Tier = 'clean' | 'some' | 'bad';

/** How many records of one kind a profile has: none when clean, else with a chance and a maximum per tier. */
function recordCount(
  random: SeededRandom,
  tier: Tier,
  odds: Readonly<Record<Exclude<Tier, 'clean'>, readonly [chance: number, most: number]>>,
): number {
  if (tier === 'clean') return 0;
  const [chance, most] = odds[tier];
  return random.chance(chance) ? random.integer(1, most) : 0;
}

function profileOf(random: SeededRandom): Profile {
  const roll = random.next();
  // About half clean, a third with some trouble, the rest in real difficulty.
  const tier: Tier = roll < 0.5 ? 'clean' : roll < 0.85 ? 'some' : 'bad';
  const score =
    tier === 'clean'
      ? random.integer(650, 980)
      : tier === 'some'
        ? random.integer(350, 700)
        : random.integer(0, 380);
  const probabilityRoll = random.next();
  return {
    score,
    probability: probabilityRoll < 0.08 ? 'not calculated' : probabilityRoll < 0.3 ? 'number' : 'percent',
    protests: recordCount(random, tier, { some: [0.35, 2], bad: [0.8, 6] }),
    pendingDebts: recordCount(random, tier, { some: [0.6, 3], bad: [0.9, 7] }),
    bouncedCheques: recordCount(random, tier, { some: [0.1, 4], bad: [0.45, 4] }),
    stoppedCheques: recordCount(random, tier, { some: [0.05, 3], bad: [0.25, 3] }),
    statusChanged: false,
  };
}

/**
 * One epoch of drift, about a month of a real portfolio: 29% of documents change something (measured over 2,000
 * documents), most of them by a score move. About 4%
 * get a new protest and 5% a new debt (each costing score), a fifth of those with protests or debts clear some,
 * 2% bounce more cheques, 6% lose 50 to 220 score points and 4% gain 50 to 180, and 1.5% change registration
 * status.
 */
function drift(profile: Profile, random: SeededRandom): Profile {
  let { score, protests, pendingDebts, bouncedCheques, statusChanged } = profile;
  if (random.chance(0.04)) {
    protests += random.integer(1, 2);
    score -= random.integer(30, 120);
  } else if (protests > 0 && random.chance(0.2)) protests = 0;
  if (random.chance(0.05)) {
    pendingDebts += random.integer(1, 2);
    score -= random.integer(30, 120);
  } else if (pendingDebts > 0 && random.chance(0.2)) pendingDebts -= random.integer(1, pendingDebts);
  if (random.chance(0.02)) bouncedCheques += random.integer(1, 2);
  const move = random.next();
  if (move < 0.06) score -= random.integer(50, 220);
  else if (move < 0.1) score += random.integer(50, 180);
  if (random.chance(0.015)) statusChanged = !statusChanged;
  return {
    ...profile,
    score: Math.min(1000, Math.max(0, score)),
    protests,
    pendingDebts,
    bouncedCheques,
    statusChanged,
  };
}

/** A document's profile at an epoch: its starting profile, drifted once per epoch. */
export function profileAt(document: string, epoch: number): Profile {
  if (!Number.isSafeInteger(epoch) || epoch < 0)
    throw new RangeError(`epoch must be a whole number ≥ 0, got ${epoch}`);
  let profile = profileOf(new SeededRandom(`profile:${document}`));
  for (let step = 1; step <= epoch; step++)
    profile = drift(profile, new SeededRandom(`drift:${document}:${step}`));
  return profile;
}
