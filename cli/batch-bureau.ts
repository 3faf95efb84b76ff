/** Which bureau continues a local batch: the one it was started against, never another. */

import { BUILT_IN_EMULATOR_ENDPOINT, ServiceEmulator } from '../emulator/service-emulator.ts';
import type { BatchRecord } from '../src/domain/batch/index.ts';
import type { BureauGateway } from '../src/domain/ports/index.ts';
import { CliError } from './cli-error.ts';
import type { LocalBureauTarget } from './local/local-pipeline-options.ts';
import { baseUrlProblem } from './option-parsers.ts';
import { printable } from './terminal-text.ts';

/** The bureau a command's local workers call, and how to let it go. */
export interface BatchBureau {
  /** Always says where its calls go: the state and the batches are held to that endpoint. */
  readonly target: LocalBureauTarget & { readonly bureauEndpoint: string };
  close(): Promise<void>;
}

/**
 * The bureau of a command that buys nothing, when its token is not at hand: a cancelled row settles before any call,
 * and a rejected batch queues none. Should a call ever be asked for, it fails before anything is written ahead.
 */
const SENDS_NOTHING: BureauGateway = {
  prepare: async () => {
    throw new Error('this command sends nothing to the bureau (no BUREAU_TOKEN)');
  },
  fetchReport: async () => {
    throw new Error('this command sends nothing to the bureau (no BUREAU_TOKEN)');
  },
};

/** Where a batch was started: batches stored before endpoints were recorded ran against the emulator. */
const endpointOf = (batch: BatchRecord): string => batch.bureauEndpoint ?? BUILT_IN_EMULATOR_ENDPOINT;

/**
 * Opens the bureau that continues `batches`: the bundled emulator (at `epoch`) for batches screened against it (and
 * when there are none), or the gateway a `--live` run used, with the token in BUREAU_TOKEN (never stored). Refused
 * in one line, before anything is sent, when that token is missing or the batches were started against different
 * bureaus: another bureau's answers would be made up for these customers.
 */
export async function openBatchBureau(
  batches: readonly BatchRecord[],
  epoch: number,
  /** A cancel or a reject: its workers settle rows without a call, so a missing token does not stop it. */
  { buysNothing = false }: { readonly buysNothing?: boolean } = {},
): Promise<BatchBureau> {
  const endpoints = [...new Set(batches.map(endpointOf))];
  if (endpoints.length > 1)
    throw new CliError(
      `these batches were started against different bureaus (${endpoints.map((endpoint) => printable(endpoint)).join(', ')}): nothing was sent; continue each where it was started`,
    );
  const [endpoint = BUILT_IN_EMULATOR_ENDPOINT] = endpoints;
  if (endpoint === BUILT_IN_EMULATOR_ENDPOINT) {
    const emulator = await ServiceEmulator.start({ epoch });
    return {
      target: { bureauBaseUrl: emulator.url, token: emulator.token, bureauEndpoint: endpoint },
      close: () => emulator.close(),
    };
  }
  const started = batches.length === 1 ? `batch ${batches[0]?.batchId} was` : 'these batches were';
  const problem = baseUrlProblem(endpoint);
  if (problem !== null)
    throw new CliError(
      `${started} started against ${printable(endpoint)}, which ${problem}: nothing was sent`,
    );
  const token = process.env.BUREAU_TOKEN;
  if ((token === undefined || token === '') && buysNothing)
    return {
      target: { bureauBaseUrl: endpoint, token: 'unused', bureau: SENDS_NOTHING, bureauEndpoint: endpoint },
      close: async () => undefined,
    };
  if (token === undefined || token === '')
    throw new CliError(
      `${started} started against ${printable(endpoint)}: set BUREAU_TOKEN to its token to continue there (nothing was sent)`,
    );
  return {
    target: { bureauBaseUrl: endpoint, token, bureauEndpoint: endpoint },
    close: async () => undefined,
  };
}

/**
 * Which unfinished batches one `resume` can take further: one bureau's (a run calls one). The `--live` gateway's
 * when BUREAU_TOKEN is set and one gateway is waiting, else the bundled emulator's; `later` says, in one line, what
 * is left for another resume (null when nothing is). Several gateways at once cannot be told apart by one token:
 * refused in one line, nothing sent.
 */
export function resumableNow(unfinished: readonly BatchRecord[]): {
  readonly resume: readonly BatchRecord[];
  readonly later: string | null;
} {
  const endpoints = [...new Set(unfinished.map(endpointOf))];
  if (endpoints.length <= 1) return { resume: unfinished, later: null };
  const gateways = endpoints.filter((endpoint) => endpoint !== BUILT_IN_EMULATOR_ENDPOINT);
  const token = process.env.BUREAU_TOKEN;
  const tokenGiven = token !== undefined && token !== '';
  if (tokenGiven && gateways.length > 1)
    throw new CliError(
      `unfinished batches wait for ${gateways.length} bureaus (${gateways.map((endpoint) => printable(endpoint)).join(', ')}) and one BUREAU_TOKEN cannot tell them apart: nothing was sent`,
    );
  const chosen = tokenGiven ? (gateways[0] as string) : BUILT_IN_EMULATOR_ENDPOINT;
  const resume = unfinished.filter((batch) => endpointOf(batch) === chosen);
  const left = unfinished.filter((batch) => endpointOf(batch) !== chosen);
  const where = [...new Set(left.map(endpointOf))].map((endpoint) => printable(endpoint)).join(', ');
  return {
    resume,
    later: `${left.length === 1 ? '1 batch started' : `${left.length} batches started`} against ${where} left for later: ${tokenGiven ? 'resume them without BUREAU_TOKEN' : 'resume them with BUREAU_TOKEN set to its token'}`,
  };
}
