/**
 * Writes docs/cli-options.md, the page of every command-line option, from the option table
 * (cli/option-table.ts): `npx tsx scripts/cli-options-doc.ts`. test/cli/option-table.test.ts fails while the
 * committed page differs from what this writes.
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { OPTION_DOCS_PATH, renderOptionDocs } from '../cli/option-docs.ts';

const path = fileURLToPath(new URL(`../${OPTION_DOCS_PATH}`, import.meta.url));
writeFileSync(path, renderOptionDocs());
process.stdout.write(`wrote ${OPTION_DOCS_PATH}\n`);
