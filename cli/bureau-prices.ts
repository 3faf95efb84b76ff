import { DEFAULT_SETTINGS } from '../src/contract/index.ts';
import { perBureau } from '../src/domain/bureau/index.ts';
import type { Bureau } from '../src/domain/report/index.ts';
import { CliError } from './cli-error.ts';
import type { prices } from './option-groups.ts';
import type { OptionsOf } from './option-types.ts';

/** The price options as commander gives them: `--price a=2,70` (repeatable) and the aliases `--price-a 2,70`. */
type PriceOptions = OptionsOf<ReturnType<typeof prices>>;

/** The key commander gives `--price-<bureau>` under: `--price-a` → `priceA` (its camelCase, not `toUpperCase`). */
function aliasKey(bureau: Bureau): `price${Capitalize<Bureau>}` {
  return `price${bureau.charAt(0).toUpperCase()}${bureau.slice(1)}` as `price${Capitalize<Bureau>}`;
}

/** The price given for a bureau (by `--price <bureau>=` or its alias), or undefined; refuses one given twice. */
export function givenPrice(options: PriceOptions, bureau: Bureau): number | undefined {
  const byPrice = (options.price ?? [])
    .filter((entry) => entry.bureau === bureau)
    .map((entry) => entry.price);
  const alias = options[aliasKey(bureau)];
  const given = [...byPrice, ...(alias === undefined ? [] : [alias])];
  if (given.length > 1 && new Set(given).size > 1)
    throw new CliError(`bureau ${bureau} is given ${given.length} prices (${given.join(', ')}): give one`);
  return given[0];
}

/** Each bureau's price: the one given, or the list price. */
export function pricesOf(options: PriceOptions): Record<Bureau, number> {
  return perBureau((bureau) => givenPrice(options, bureau) ?? DEFAULT_SETTINGS.bureaus[bureau].pricePerQuery);
}
