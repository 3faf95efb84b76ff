/**
 * A big batch's finalisation in parts: each part of `finalisePartRows` rows (a setting) is a finalise message of its
 * own, written by whichever invocation takes it (in parallel, on the finaliser's concurrency); the part that finds
 * every part written asks for the join, which concatenates the parts' lines into the result files in input order
 * and adds their counts and figures up. No invocation's memory or time grows with the batch but the join's, which
 * only copies bytes (see docs/architecture.md, "Big batches").
 */

import pLimit from 'p-limit';
import {
  type BatchManifest,
  DEFAULT_SETTINGS,
  type DecisionTally,
  finaliseAggregatesPrefix,
  finalisePartKeys,
  finalisePartsPrefix,
  resultKeys,
} from '../../contract/index.ts';
import { type BatchRecord, type FinalisePart, partsOf } from '../../domain/batch/index.ts';
import type { DocumentChange, DocumentChangedEvent, ObjectStore } from '../../domain/ports/index.ts';
import {
  type BatchStatistics,
  compareChangeSeverity,
  PART_STATISTICS_LIMITS,
  SummaryStatisticsCollector,
  TopList,
} from '../../domain/summary/index.ts';
import { jsonLines as linesOf } from '../redecide/report-lines.ts';
import { DEFAULT_CHANGE_ALERTS, type FinaliseDependencies } from './finalise-dependencies.ts';
import { type BatchTotals, finalisingBatch, finishBatch } from './finish-batch.ts';
import { resultFilesOf, writeRangeFiles } from './result-files.ts';

/** Part messages in flight at once when a batch is split. */
const PART_MESSAGES_IN_FLIGHT = 8;

const partRowsOf = (deps: Pick<FinaliseDependencies, 'partRows'>): number =>
  deps.partRows ?? DEFAULT_SETTINGS.finalisePartRows;

/** The parts of a batch's finalisation: one when it is small enough to be written at once. */
export function finalisePartsOf(
  batch: Pick<BatchRecord, 'rows'>,
  deps: Pick<FinaliseDependencies, 'partRows'>,
): FinalisePart[] {
  return partsOf(batch.rows, partRowsOf(deps)).map((range, index) => ({
    index,
    ...range,
  }));
}

/**
 * Asks for the parts not written yet, one message each, or for the join when every part is: what a whole-batch
 * finalise message does for a big batch, again when it comes back (a redelivery, the local runner's resume of an
 * interrupted batch). Each message carries the size the parts are cut at.
 */
export async function startParts(
  batch: BatchRecord,
  parts: readonly FinalisePart[],
  deps: FinaliseDependencies,
): Promise<void> {
  const { batchId } = batch;
  const partRows = partRowsOf(deps);
  const missing = await missingParts(batch, parts, deps.objects);
  if (missing.length === 0) {
    await deps.queue.sendFinalise({ version: 1, batchId, compose: true, partRows });
    return;
  }
  const limit = pLimit(PART_MESSAGES_IN_FLIGHT);
  await Promise.all(
    missing.map((part) => limit(() => deps.queue.sendFinalise({ version: 1, batchId, part, partRows }))),
  );
  deps.logger.info('finalisation split into parts', { batchId, parts: parts.length, sent: missing.length });
}

/** What a written part counted, as `aggregate.json` keeps it. */
interface PartAggregate extends Omit<BatchTotals, 'statistics'> {
  readonly version: 1;
  readonly statistics: BatchStatistics;
}

/**
 * Writes one part: its lines of each result file (the first part's with the header lines), the documents its alerts
 * announce, and last its aggregate, which marks it written. The part that finds every part written asks for the
 * join (two may both find it: joining twice is safe). Safe to repeat.
 */
export async function finalisePart(
  batchId: string,
  part: FinalisePart,
  deps: FinaliseDependencies,
): Promise<void> {
  const batch = await finalisingBatch(batchId, deps);
  if (batch === null) return;
  const parts = finalisePartsOf(batch, deps);
  const expected = parts[part.index];
  if (expected?.first !== part.first || expected.last !== part.last) {
    // Not a part of this batch at this size (the split carries its size, so only a forged or garbled message).
    deps.logger.warn('finalise part not of this batch’s parts; ignored', { batchId, part });
    return;
  }
  const keys = finalisePartKeys(batchId, batch.revision, part);
  const scope = { range: part, withHeaders: part.index === 0, statisticsLimits: PART_STATISTICS_LIMITS };
  const results = await writeRangeFiles(batch, keys, scope, resultKeys(batchId).changes, deps);
  await deps.objects.writeStream(keys.alerts, 'application/x-ndjson', jsonLines(results.changeAlerts));
  const aggregate: PartAggregate = {
    version: 1,
    counts: results.counts,
    charges: results.charges,
    chargeUnknownFailed: results.chargeUnknownFailed,
    changeTally: results.changeTally,
    statistics: results.statistics.result(),
    decisions: results.decisions,
    worstChanges: results.changeAlerts?.worstChanges ?? [],
  };
  await deps.objects.putJson(keys.aggregate, aggregate);
  // A repeated part that ran while the join completed the batch (and removed the parts) must not leave its copy.
  if ((await finalisingBatch(batchId, deps)) === null) {
    await removeObjects(Object.values(keys), deps.objects);
    return;
  }
  if ((await missingParts(batch, parts, deps.objects)).length === 0)
    await deps.queue.sendFinalise({ version: 1, batchId, compose: true, partRows: partRowsOf(deps) });
}

async function* jsonLines(
  alerts: { readonly documentEvents: readonly unknown[] } | null,
): AsyncGenerator<string> {
  for (const event of alerts?.documentEvents ?? []) yield `${JSON.stringify(event)}\n`;
}

/**
 * Joins the written parts into the result files, in input order, adds their counts and figures up, and ends the
 * batch as a batch written at once ends (report page, manifest, completion, announcements); then removes the parts.
 * Null when a part is missing (its message is still on the queue; the part that writes it asks for the join again)
 * or another run completed the batch.
 */
export async function composeParts(
  batchId: string,
  deps: FinaliseDependencies,
): Promise<BatchManifest | null> {
  const batch = await finalisingBatch(batchId, deps);
  if (batch === null) return null;
  const parts = finalisePartsOf(batch, deps);
  const missing = await missingParts(batch, parts, deps.objects);
  if (missing.length > 0) {
    deps.logger.warn('join asked for with parts still to write; ignored', {
      batchId,
      missing: missing.length,
    });
    return null;
  }
  const totals = await joinedTotals(batchId, batch.revision, parts, deps);
  const keys = resultKeys(batchId);
  const partKeys = parts.map((part) => finalisePartKeys(batchId, batch.revision, part));
  await deps.objects.writeStream(
    keys.summary,
    'text/csv; charset=utf-8',
    joined(deps.objects, partKeys, 'summary'),
  );
  await deps.objects.writeStream(
    keys.reports,
    'application/x-ndjson; charset=utf-8',
    joined(deps.objects, partKeys, 'reports'),
  );
  if (batch.policy !== null)
    await deps.objects.writeStream(
      keys.review,
      'application/x-ndjson; charset=utf-8',
      joined(deps.objects, partKeys, 'review'),
    );
  if (batch.portfolio !== null)
    await deps.objects.writeStream(
      keys.changes,
      'text/csv; charset=utf-8',
      joined(deps.objects, partKeys, 'changes'),
    );
  const manifest = await finishBatch(
    batch,
    totals,
    resultFilesOf(batch, keys),
    documentsOf(deps.objects, partKeys),
    deps,
  );
  // Only the join that completed the batch removes the parts, once it has announced it: another join (two parts
  // may both ask for one) must not take the alerts the first is still reading. Parts a join left when it stopped
  // expire with their prefix (FINALISE_PARTS_EXPIRY_DAYS).
  if (manifest !== null) await removeParts(batchId, deps.objects);
  return manifest;
}

/** The parts of the batch's current finalisation without an aggregate (not written yet). */
async function missingParts(
  batch: Pick<BatchRecord, 'batchId' | 'revision'>,
  parts: readonly FinalisePart[],
  objects: ObjectStore,
): Promise<FinalisePart[]> {
  const written = new Set<string>();
  for await (const key of objects.list(finaliseAggregatesPrefix(batch.batchId, batch.revision)))
    written.add(key);
  return parts.filter(
    (part) => !written.has(finalisePartKeys(batch.batchId, batch.revision, part).aggregate),
  );
}

/** The parts' aggregates added up, in row order (what one pass over every row would have counted). */
async function joinedTotals(
  batchId: string,
  revision: number,
  parts: readonly FinalisePart[],
  deps: FinaliseDependencies,
): Promise<BatchTotals> {
  const statistics = new SummaryStatisticsCollector();
  const worst = new TopList<DocumentChange>(
    (deps.changeAlerts ?? DEFAULT_CHANGE_ALERTS).worstChanges,
    compareChangeSeverity,
  );
  let totals: Omit<BatchTotals, 'statistics' | 'worstChanges'> | null = null;
  for (const part of parts) {
    const text = await deps.objects.readTextIfExists(finalisePartKeys(batchId, revision, part).aggregate);
    if (text === null) throw new Error(`part ${part.index} of batch ${batchId} has no aggregate`);
    // Written by finalisePart of this same code: its shape is ours, not input.
    const aggregate = JSON.parse(text) as PartAggregate;
    statistics.absorb(aggregate.statistics);
    for (const change of aggregate.worstChanges) worst.offer(change);
    totals = totals === null ? aggregate : addTotals(totals, aggregate);
  }
  if (totals === null) throw new Error(`batch ${batchId} has no parts`);
  return { ...totals, statistics, worstChanges: worst.items };
}

type Counted = Omit<BatchTotals, 'statistics' | 'worstChanges'>;

function addTotals(total: Counted, part: Counted): Counted {
  return {
    counts: addCounts(total.counts, part.counts),
    charges: addCounts(total.charges, part.charges),
    chargeUnknownFailed: total.chargeUnknownFailed + part.chargeUnknownFailed,
    changeTally: {
      counts: addCounts(total.changeTally.counts, part.changeTally.counts),
      documentsChanged: total.changeTally.documentsChanged + part.changeTally.documentsChanged,
    },
    decisions: addDecisions(total.decisions, part.decisions),
  };
}

function addCounts<Counts extends Readonly<Record<string, number>>>(total: Counts, part: Counts): Counts {
  const sum: Record<string, number> = { ...total };
  for (const [key, count] of Object.entries(part)) sum[key] = (sum[key] ?? 0) + count;
  return sum as Counts;
}

/** Decision tallies added up: counts per decision, rows per reason (sorted as one tally sorts them). */
function addDecisions(total: DecisionTally | null, part: DecisionTally | null): DecisionTally | null {
  if (total === null || part === null) return total ?? part;
  const reasons = new Map(total.reasons.map((reason) => [reason.code, { ...reason }]));
  for (const reason of part.reasons) {
    const known = reasons.get(reason.code);
    if (known === undefined) reasons.set(reason.code, { ...reason });
    else known.rows += reason.rows;
  }
  return {
    counts: addCounts(total.counts, part.counts),
    reasons: [...reasons.values()].sort(
      (first, second) => second.rows - first.rows || first.code.localeCompare(second.code),
    ),
  };
}

type PartKeys = ReturnType<typeof finalisePartKeys>;

/** One file's parts, one after the other, as their bytes (nothing decoded: a byte-order mark stays where it is). */
async function* joined(
  objects: ObjectStore,
  parts: readonly PartKeys[],
  file: 'summary' | 'reports' | 'changes' | 'review',
): AsyncGenerator<Uint8Array> {
  for (const keys of parts) yield* objects.read(keys[file]);
}

/** `DocumentChanged` events announced at once: enough to fill the publisher's calls, few enough to hold. */
const DOCUMENT_EVENTS_PER_GROUP = 1000;

/**
 * The `DocumentChanged` events of the parts, in row order, in groups of {@link DOCUMENT_EVENTS_PER_GROUP}, read as
 * they stream in: a re-screen's part may announce a change for each of its rows, more than a join should hold.
 */
async function* documentsOf(
  objects: ObjectStore,
  parts: readonly PartKeys[],
): AsyncGenerator<readonly DocumentChangedEvent[]> {
  let group: DocumentChangedEvent[] = [];
  // Every part wrote its alerts file (empty when nothing changed) before its aggregate, and the join runs only once
  // every aggregate is there: no existence check (a request per part, one after another) is needed.
  for (const keys of parts) {
    for await (const lines of linesOf(objects.read(keys.alerts), keys.alerts))
      for (const line of lines) {
        // Written by finalisePart from events of this same code.
        group.push(JSON.parse(line) as DocumentChangedEvent);
        if (group.length < DOCUMENT_EVENTS_PER_GROUP) continue;
        yield group;
        group = [];
      }
  }
  if (group.length > 0) yield group;
}

/** Removes every object of a batch's finalisation parts (they repeat personal data the result files hold). */
async function removeParts(batchId: string, objects: ObjectStore): Promise<void> {
  const keys: string[] = [];
  for await (const key of objects.list(finalisePartsPrefix(batchId))) keys.push(key);
  await removeObjects(keys, objects);
}

async function removeObjects(keys: readonly string[], objects: ObjectStore): Promise<void> {
  const limit = pLimit(PART_MESSAGES_IN_FLIGHT);
  await Promise.all(keys.map((key) => limit(() => objects.remove(key))));
}
