import { join } from 'node:path';
import { BUILT_IN_EMULATOR_ENDPOINT } from '../../emulator/service-emulator.ts';
import type { BatchStore } from '../../src/domain/ports/index.ts';
import { LocalStateError, STATE_BUREAU_FILE } from './local-state.ts';
import { readIfThere, writeOnce, writePrivateFile } from './private-files.ts';

/** How many of the newest batches are read to learn the bureau of a state kept before the record existed. */
const STORED_BATCHES_READ = 1000;

function anotherBureau(stateDirectory: string, kept: string, calling: string): LocalStateError {
  return new LocalStateError(
    `${stateDirectory} holds reports from ${kept}, and this run calls ${calling}, which would take them for its own: nothing was sent; name another state directory with --state, or empty this one with --fresh`,
  );
}

/**
 * Holds a state directory to one bureau endpoint. Reports are reused across a state's batches by bureau and
 * document (the freshness window, another batch's purchase), so in one directory a `--live` batch would be settled
 * from the built-in emulator's made-up reports, or an emulator run from a real customer's paid ones. The first run
 * that calls a bureau records its endpoint; a run calling another is refused before anything is sent. A state kept
 * before the record existed belongs to the endpoint its batches were started against (a batch that recorded none
 * ran against the built-in emulator).
 *
 * A command that only takes a batch further on its own bureau (`record: false`: approve, redrive, resume) is refused
 * only by a recorded endpoint: a state mixed before the record existed can still finish each batch where it began.
 *
 * @throws LocalStateError when the directory's reports came from another endpoint
 */
export async function keepStateBureau(
  stateDirectory: string,
  endpoint: string,
  store: Pick<BatchStore, 'listBatches'>,
  { record = true }: { readonly record?: boolean } = {},
): Promise<void> {
  const path = join(stateDirectory, STATE_BUREAU_FILE);
  // An empty record is one a run killed between creating and writing it: as good as none.
  const kept = (await readIfThere(path)) || null;
  if (kept !== null && kept !== endpoint) throw anotherBureau(stateDirectory, kept, endpoint);
  if (kept !== null || !record) return;
  const stored = await store.listBatches(STORED_BATCHES_READ);
  const other = stored
    .map((batch) => batch.bureauEndpoint ?? BUILT_IN_EMULATOR_ENDPOINT)
    .find((started) => started !== endpoint);
  if (other !== undefined) throw anotherBureau(stateDirectory, other, endpoint);
  // Two runs starting on one state at once: the first to record its endpoint holds the directory.
  await writeOnce(path, `${endpoint}\n`);
  const first = await readIfThere(path);
  // The file a killed run left empty is rewritten owner-only, whatever its mode became since.
  if (first === '') await writePrivateFile(path, `${endpoint}\n`);
  else if (first !== endpoint) throw anotherBureau(stateDirectory, first ?? '?', endpoint);
}
