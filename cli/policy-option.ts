import { createHash } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { zenCreditPolicyLoader } from '../src/adapters/decision/zen-credit-policy.ts';
import { isPolicyName } from '../src/contract/index.ts';
import type { CreditPolicy } from '../src/domain/ports/index.ts';
import { CliError } from './cli-error.ts';
import { printable } from './terminal-text.ts';

/** A policy file given with `--policy`, read and compiled before anything is bought. */
export interface PolicyOption {
  /** The name it is kept under in the bucket (`policies/<name>`): the file's own name when it can be one. */
  readonly name: string;
  readonly bytes: Uint8Array;
  readonly policy: CreditPolicy;
}

/** A policy larger than this is not a decision graph a person edits; refused before it is read whole. */
const MAX_POLICY_BYTES = 5 * 1024 * 1024;

/**
 * Reads and compiles `--policy <file>`: a file that is missing, not JSON, not a JDM graph, with an expression that
 * does not compile, or whose outputs hold no `decision` is refused here in one line naming the file (and the node),
 * before a batch starts. What the policy reads that the decision input lacks is said once per field on stderr.
 */
export async function readPolicyOption(file: string | undefined): Promise<PolicyOption | null> {
  if (file === undefined) return null;
  let bytes: Uint8Array;
  try {
    const info = await stat(file);
    if (!info.isFile()) throw new CliError(`--policy ${printable(file)}: not a regular file`);
    if (info.size > MAX_POLICY_BYTES) throw new CliError(`--policy ${printable(file)}: larger than 5 MiB`);
    bytes = await readFile(file);
  } catch (error) {
    if (error instanceof CliError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    throw new CliError(
      `--policy ${printable(file)}: ${code === 'ENOENT' ? 'no such file' : `cannot read (${code ?? 'error'})`}`,
    );
  }
  const name = isPolicyName(basename(file))
    ? basename(file)
    : `policy-${createHash('sha256').update(bytes).digest('hex').slice(0, 12)}.json`;
  const loaded = await zenCreditPolicyLoader.load(name, bytes);
  if (!loaded.ok) throw new CliError(`--policy ${printable(file)}: ${loaded.error}`);
  for (const warning of loaded.warnings)
    process.stderr.write(`warning: --policy ${printable(file)}: ${warning}\n`);
  return { name, bytes, policy: loaded.policy };
}
