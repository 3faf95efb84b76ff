import { DEFAULT_STATE_DIRECTORY } from '../local/local-state.ts';
import { APPROVE_ABOVE, epoch } from '../option-groups.ts';
import type { OptionSpec } from '../option-spec.ts';

/** The port `credit-screen console` listens on unless told otherwise. */
const DEFAULT_CONSOLE_PORT = 7474;

/** `credit-screen console`: which state it serves, and where. */
export const CONSOLE_OPTIONS = [
  {
    flags: '--state <dir>',
    description: 'the local state directory the console shows and acts on',
    value: { type: 'path', of: 'folder' },
    default: { value: DEFAULT_STATE_DIRECTORY },
  },
  {
    flags: '--port <port>',
    description: 'port to listen on, on 127.0.0.1 only (0 picks a free one)',
    value: { type: 'integer', min: 0, max: 65_535 },
    default: { value: DEFAULT_CONSOLE_PORT },
  },
  APPROVE_ABOVE,
  epoch('the emulator epoch the queries of batches started against the bundled emulator see'),
] as const satisfies readonly OptionSpec[];
