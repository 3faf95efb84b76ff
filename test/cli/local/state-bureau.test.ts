import { chmod, mkdtemp, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LocalStateError } from '../../../cli/local/local-state.ts';
import { keepStateBureau } from '../../../cli/local/state-bureau.ts';
import { BUILT_IN_EMULATOR_ENDPOINT } from '../../../emulator/service-emulator.ts';
import type { BatchRecord } from '../../../src/domain/batch/index.ts';
import { batchRecord } from '../../factories/batch-records.ts';

const GATEWAY = 'https://bureau.example.com/v1';
const stateDirectory = () => mkdtemp(join(tmpdir(), 'credit-screen-state-bureau-'));
/** A state's stored batches, as `listBatches` answers. */
const storedBatches = (...batches: BatchRecord[]) => ({ listBatches: async () => batches });

describe('keepStateBureau', () => {
  it('records the first run’s endpoint, privately, and lets the same endpoint in again', async () => {
    const directory = await stateDirectory();

    await keepStateBureau(directory, GATEWAY, storedBatches());
    await keepStateBureau(directory, GATEWAY, storedBatches(batchRecord({ bureauEndpoint: GATEWAY })));

    expect(await readFile(join(directory, 'bureau-endpoint'), 'utf8')).toBe(`${GATEWAY}\n`);
    expect((await stat(join(directory, 'bureau-endpoint'))).mode & 0o777).toBe(0o600);
  });

  it('refuses another endpoint once one is recorded, naming both', async () => {
    const directory = await stateDirectory();
    await keepStateBureau(directory, BUILT_IN_EMULATOR_ENDPOINT, storedBatches());

    await expect(keepStateBureau(directory, GATEWAY, storedBatches())).rejects.toThrow(
      new LocalStateError(
        `${directory} holds reports from the built-in emulator, and this run calls ${GATEWAY}, which would take them for its own: nothing was sent; name another state directory with --state, or empty this one with --fresh`,
      ),
    );
  });

  it('takes a state kept before the record from its batches: one that recorded none ran on the emulator', async () => {
    const legacy = await stateDirectory();
    const started = await stateDirectory();

    const [unrecorded, recorded] = await Promise.allSettled([
      keepStateBureau(legacy, GATEWAY, storedBatches(batchRecord({ bureauEndpoint: null }))),
      keepStateBureau(started, GATEWAY, storedBatches(batchRecord({ bureauEndpoint: GATEWAY }))),
    ]);

    expect(unrecorded).toMatchObject({
      status: 'rejected',
      reason: expect.objectContaining({
        message: expect.stringMatching(/holds reports from the built-in emulator, and this run calls/),
      }),
    });
    expect(recorded.status).toBe('fulfilled');
    expect(await readFile(join(started, 'bureau-endpoint'), 'utf8')).toBe(`${GATEWAY}\n`);
  });

  it('lets the first of two runs starting at once hold the state', async () => {
    const directory = await stateDirectory();

    const outcomes = await Promise.allSettled([
      keepStateBureau(directory, GATEWAY, storedBatches()),
      keepStateBureau(directory, BUILT_IN_EMULATOR_ENDPOINT, storedBatches()),
    ]);

    expect(outcomes.map((outcome) => outcome.status).sort()).toEqual(['fulfilled', 'rejected']);
  });

  it('lets a command on its own batches finish a state mixed before the record, writing nothing; a record still holds', async () => {
    const mixed = await stateDirectory();
    const recorded = await stateDirectory();
    await keepStateBureau(recorded, BUILT_IN_EMULATOR_ENDPOINT, storedBatches());
    const batches = storedBatches(
      batchRecord({ bureauEndpoint: null }),
      batchRecord({ bureauEndpoint: GATEWAY }),
    );

    const [onMixed, onRecorded] = await Promise.allSettled([
      keepStateBureau(mixed, GATEWAY, batches, { record: false }),
      keepStateBureau(recorded, GATEWAY, batches, { record: false }),
    ]);

    expect(onMixed.status).toBe('fulfilled');
    expect(await readdir(mixed)).toEqual([]);
    expect(onRecorded).toMatchObject({ status: 'rejected' });
  });

  it('takes an empty record (a run killed while writing it) for none, and records this run’s endpoint', async () => {
    const directory = await stateDirectory();
    await writeFile(join(directory, 'bureau-endpoint'), '');
    // Readable by others whatever the umask, as a file left by an older version would be.
    await chmod(join(directory, 'bureau-endpoint'), 0o644);

    await keepStateBureau(directory, GATEWAY, storedBatches());

    expect(await readFile(join(directory, 'bureau-endpoint'), 'utf8')).toBe(`${GATEWAY}\n`);
    expect((await stat(join(directory, 'bureau-endpoint'))).mode & 0o777).toBe(0o600);
  });
});
