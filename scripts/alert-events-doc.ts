/**
 * Writes docs/alerts.md, the page of every event the pipeline sends, from the alert catalogue
 * (src/contract/alert-events.ts): `npx tsx scripts/alert-events-doc.ts`. test/cli/alert-docs.test.ts fails while the
 * committed page differs from what this writes.
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ALERT_DOCS_PATH, renderAlertDocs } from '../cli/alert-docs.ts';

const path = fileURLToPath(new URL(`../${ALERT_DOCS_PATH}`, import.meta.url));
writeFileSync(path, renderAlertDocs());
process.stdout.write(`wrote ${ALERT_DOCS_PATH}\n`);
