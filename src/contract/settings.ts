/** The pipeline's settings: what the construct's props and the local runner's options override, and their checks. */

import { isReportLanguage, type ReportLanguage } from '../domain/batch-report/report-language.ts';
import { BUREAU_REGISTRY, type BureauSettings, perBureau } from '../domain/bureau/index.ts';
import { CHANGE_KINDS, type ChangeKind } from '../domain/monitoring/index.ts';
import { BUREAUS, type Bureau } from '../domain/report/index.ts';
import { MAX_REVIEW_SLA_HOURS, type ReviewSla } from '../domain/review/index.ts';
import { DEFAULT_ALERT_CHANGE_KINDS, DEFAULT_ALERT_WORST_CHANGES } from './alert-events.ts';
import { isPolicyName } from './policies.ts';

export type { ReportLanguage };

/** Settings the two environments share; the construct's props and the runner's options override the defaults. */
export interface PipelineSettings {
  /** Bureau used when the upload key does not name one (`incoming/a/…`, `incoming/b/…`). */
  readonly defaultBureau: Bureau;
  /** What each bureau of the registry runs with: rate, burst, price per query, monthly cap. */
  readonly bureaus: Readonly<Record<Bureau, BureauSettings>>;
  /**
   * A batch that would buy more documents than this waits for a person (`awaiting_approval`, its quote in
   * `results/<batchId>/quote.json`, a `BatchAwaitingApproval` event) and buys nothing until approved; null: never.
   */
  readonly approvalThreshold: number | null;
  /** Concurrent worker invocations (the SQS event source's MaximumConcurrency, at least 2). */
  readonly workerConcurrency: number;
  /** Concurrent bureau calls inside one worker invocation. */
  readonly callsPerInvocation: number;
  /** Messages per worker invocation. */
  readonly workerBatchSize: number;
  /** How long the SQS event source gathers messages before invoking a worker with fewer than a full batch. */
  readonly workerBatchingWindowSeconds: number;
  /**
   * Share the work queue fairly between batches: each work message carries its SQS fair-queue `MessageGroupId`
   * (the batch, the priority lane or the scheduled runs; src/domain/batch/delivery-lane.ts), so a large batch
   * does not hold up a small one. Off only for a queue service that refuses message groups on a standard queue.
   */
  readonly fairQueues: boolean;
  /** Reuse a stored report younger than this instead of paying again; 0 turns it off. */
  readonly freshnessHours: number;
  /**
   * Days personal data is kept (S3 lifecycle and DynamoDB TTL): at most {@link MAX_RETENTION_DAYS}, since negative
   * information (protests, debts, cheques) may not be kept beyond five years (Código de Defesa do Consumidor, art.
   * 43 §1º).
   */
  readonly retentionDays: number;
  /** Bureau calls per document before it is settled as failed. */
  readonly maxAttempts: number;
  /** Per-request timeout of bureau calls. */
  readonly bureauTimeoutSeconds: number;
  /**
   * Buy a document again, without asking, when a call for it left and its answer was lost (a timeout, a crash or a
   * failure of ours after sending): the bureau may have charged that call, so the document may be paid twice. Off,
   * such a row ends `failed` with its charge unknown, and `redrive --charge-unknown` buys it once the user agrees.
   * For customers who put coverage before cost.
   */
  readonly rebuyChargeUnknown: boolean;
  /**
   * Largest bureau answer a worker reads, in bytes. A report is a few kilobytes; normalising one takes about 15
   * times its size in memory, and a worker runs `callsPerInvocation` at once in 256 MB, so anything larger is
   * settled `failed` (and counted as charged) instead of read.
   */
  readonly maxReportBytes: number;
  /** Worker function timeout; queue visibility is six times this, as AWS recommends for SQS sources. */
  readonly workerTimeoutSeconds: number;
  /** Receives before SQS moves a message to the dead-letter queue (crash loops, poison messages). */
  readonly maxReceiveCount: number;
  /** Write the summary in the Brazilian Excel dialect (`;`, decimal comma, BOM). */
  readonly excelSummary: boolean;
  /** Data rows accepted in one file; a larger file is refused whole. */
  readonly maxRows: number;
  /**
   * Rows per part of a batch's finalisation: a bigger batch is written in parts of this many rows, in parallel,
   * then joined (src/application/finalise/finalise-parts.ts), so no invocation's time or memory grows with the
   * batch. At most {@link MAX_FINALISE_PART_ROWS}, what one part may hold within the finaliser's limits.
   */
  readonly finalisePartRows: number;
  /** Smallest score move a re-screen reports as `score_drop` or `score_rise`. */
  readonly scoreChangePoints: number;
  /**
   * Schedule of a portfolio whose `portfolios/<name>.json` gives none (EventBridge Scheduler `cron(…)` or
   * `rate(…)`); null leaves such portfolios unscheduled, to be re-screened on demand.
   */
  readonly portfolioSchedule: string | null;
  /** Language of each batch's `report.html`: `pt-BR` (labels, `R$ 1.234,56`, `31/12/2026`) or `en`. */
  readonly reportLanguage: ReportLanguage;
  /**
   * The credit policy (a file name under `policies/`) that decides an upload whose `policy` metadata names none;
   * null: such batches are screened without decisions.
   */
  readonly defaultPolicy: string | null;
  /**
   * Why bureau queries are made and on what legal ground (LGPD art. 7), as every bureau request's audit entry
   * records them.
   */
  readonly queryPurpose: string;
  readonly legalBasis: string;
  /**
   * Days audit entries are kept (DynamoDB TTL): they hold no document in clear, only its keyed hash, so they may
   * outlive the data they record (proof that a query happened and why) — up to ten years.
   */
  readonly auditRetentionDays: number;
  /**
   * The change kinds a re-screen announces one `DocumentChanged` for (a document with none of them sends none). The
   * construct sets it from its webhooks' `changeKinds`.
   */
  readonly alertChangeKinds: readonly ChangeKind[];
  /** How many of a re-screen's most severe changes its `PortfolioChanged` lists. */
  readonly alertWorstChanges: number;
  /**
   * Publish events that name documents in full as well as masked, for the subscriptions that ask for documents. The
   * construct sets it from its webhooks' `includeDocuments`.
   */
  readonly alertFullDocuments: boolean;
  /**
   * How long rows in review may wait for a person, per queue (a queue is the policy that sent them): a row is due
   * this many hours after its batch completed. The console orders and flags rows by it.
   */
  readonly reviewSla: ReviewSla;
}

/**
 * The most rows a part of a finalisation may hold: two default parts. A re-screen's part with a policy is the
 * heaviest (it holds its `DocumentChanged` events until it writes them): 255 MB of heap and about 57 s at the
 * finaliser's 1,024 MB with 100,000 rows (bench:scale --rescreen), inside half of its 614 MB and of its 900 s;
 * 150,000 rows took 326 MB, past half.
 */
export const MAX_FINALISE_PART_ROWS = 100_000;

/**
 * The most parts a batch's finalisation may be cut into: the join lists and reads every part, so a part size far
 * below the list's size (a typo: 5 for 50,000) would make it list millions of objects.
 */
export const MAX_FINALISE_PARTS = 10_000;

/** Five years, the longest negative information may be kept (CDC art. 43 §1º); no deployment may set more. */
const MAX_RETENTION_DAYS = 5 * 365;

export const DEFAULT_SETTINGS: PipelineSettings = {
  defaultBureau: BUREAUS[0],
  bureaus: perBureau((bureau) => BUREAU_REGISTRY[bureau].defaults),
  approvalThreshold: 1000,
  workerConcurrency: 5,
  callsPerInvocation: 5,
  workerBatchSize: 10,
  workerBatchingWindowSeconds: 1,
  fairQueues: true,
  freshnessHours: 24,
  retentionDays: 90,
  maxAttempts: 5,
  bureauTimeoutSeconds: 20,
  rebuyChargeUnknown: false,
  maxReportBytes: 1024 * 1024,
  workerTimeoutSeconds: 60,
  maxReceiveCount: 10,
  excelSummary: false,
  maxRows: 1_000_000,
  // Measured (bench:scale, docs/performance.md): a part of 50,000 rows, every one decided by the finaliser, takes
  // about 20 s at the finaliser's CPU share and 107 MB of its 614 MB of heap.
  finalisePartRows: 50_000,
  scoreChangePoints: 50,
  portfolioSchedule: 'rate(7 days)',
  reportLanguage: 'pt-BR',
  defaultPolicy: null,
  queryPurpose: 'análise de crédito',
  legalBasis: 'LGPD art. 7º, X (proteção do crédito)',
  auditRetentionDays: MAX_RETENTION_DAYS,
  alertChangeKinds: DEFAULT_ALERT_CHANGE_KINDS,
  alertWorstChanges: DEFAULT_ALERT_WORST_CHANGES,
  alertFullDocuments: false,
  reviewSla: { defaultHours: 24, hoursByPolicy: {} },
};

/** Every bureau's settings with `change` over `base`: the same change for each, or one per bureau. */
export function bureausWith(
  change: Partial<BureauSettings> | ((bureau: Bureau) => Partial<BureauSettings>),
  base: Readonly<Record<Bureau, BureauSettings>> = DEFAULT_SETTINGS.bureaus,
): Record<Bureau, BureauSettings> {
  return perBureau((bureau) => ({
    ...base[bureau],
    ...(typeof change === 'function' ? change(bureau) : change),
  }));
}

/** The longest the audit log may be kept: ten years, the longest Brazilian law asks records of a contract be kept. */
const MAX_AUDIT_RETENTION_DAYS = 10 * 365;

/** A price per query above this is taken for a typo (centavos typed as reais, a stray zero), not a contract. */
export const MAX_PRICE_PER_QUERY = 1000;

/** What is wrong with the per-bureau settings (rate, burst, price, monthly cap). */
function bureauProblems(settings: PipelineSettings): string[] {
  const problems: string[] = [];
  for (const bureau of BUREAUS) {
    const given = settings.bureaus?.[bureau];
    if (given === undefined) {
      problems.push(`bureaus.${bureau} is missing`);
      continue;
    }
    const { rateLimitPerSecond, rateLimitBurst, pricePerQuery, monthlyChargeCap } = given;
    if (!(rateLimitPerSecond > 0)) problems.push(`bureaus.${bureau}.rateLimitPerSecond must be > 0`);
    if (!(rateLimitBurst >= 1)) problems.push(`bureaus.${bureau}.rateLimitBurst must be ≥ 1`);
    // In whole centavos, as a bureau charges and as quotes and spend count (costOf): no price is rounded anywhere.
    const centavos = pricePerQuery * 100;
    if (
      !(Number.isFinite(pricePerQuery) && pricePerQuery > 0 && pricePerQuery <= MAX_PRICE_PER_QUERY) ||
      Math.abs(centavos - Math.round(centavos)) > 1e-6
    )
      problems.push(
        `bureaus.${bureau}.pricePerQuery must be a price in BRL in whole centavos, above 0 and at most ${MAX_PRICE_PER_QUERY}`,
      );
    if (monthlyChargeCap !== null && !(Number.isSafeInteger(monthlyChargeCap) && monthlyChargeCap >= 0))
      problems.push(
        `bureaus.${bureau}.monthlyChargeCap must be a whole number of queries ≥ 0, or null for no cap`,
      );
  }
  const unknown = Object.keys(settings.bureaus ?? {}).filter(
    (id) => !(BUREAUS as readonly string[]).includes(id),
  );
  if (unknown.length > 0)
    problems.push(`bureaus: unknown bureau ${unknown.join(', ')} (known: ${BUREAUS.join(', ')})`);
  return problems;
}

/** What is wrong with the alert settings. */
function alertProblems(settings: PipelineSettings): string[] {
  const problems: string[] = [];
  if (
    !Array.isArray(settings.alertChangeKinds) ||
    settings.alertChangeKinds.some((kind) => !(CHANGE_KINDS as readonly string[]).includes(kind))
  )
    problems.push(`alertChangeKinds must list change kinds (${CHANGE_KINDS.join(', ')})`);
  if (
    !Number.isInteger(settings.alertWorstChanges) ||
    settings.alertWorstChanges < 0 ||
    settings.alertWorstChanges > 100
  )
    problems.push('alertWorstChanges must be a whole number from 0 to 100');
  if (typeof settings.alertFullDocuments !== 'boolean')
    problems.push('alertFullDocuments must be true or false');
  return problems;
}

/** The settings that are switches: true or false, nothing else (a string "false" from a context is not off). */
function switchProblems(settings: PipelineSettings): string[] {
  const switches = ['fairQueues', 'excelSummary', 'rebuyChargeUnknown', 'alertFullDocuments'] as const;
  return switches
    .filter((name) => typeof settings[name] !== 'boolean')
    .map((name) => `${name} must be true or false`);
}

/** The settings written as words: a schedule, a language, a policy's file name, the audit's purpose and basis. */
function textProblems(settings: PipelineSettings): string[] {
  const problems: string[] = [];
  for (const name of ['queryPurpose', 'legalBasis'] as const)
    if (typeof settings[name] !== 'string' || settings[name].trim() === '' || settings[name].length > 200)
      problems.push(`${name} must be a text of 1 to 200 characters`);
  if (settings.portfolioSchedule !== null && !/^(cron|rate)\(.+\)$/.test(settings.portfolioSchedule))
    problems.push('portfolioSchedule must be cron(…), rate(…) or null');
  if (!isReportLanguage(settings.reportLanguage)) problems.push('reportLanguage must be pt-BR or en');
  if (settings.defaultPolicy !== null && !isPolicyName(settings.defaultPolicy))
    problems.push('defaultPolicy must be a policy file name under policies/ (name.json), or null');
  return problems;
}

/** What is wrong with the sizes of a list and of the parts it is finalised in. */
function sizeProblems(settings: PipelineSettings): string[] {
  const problems: string[] = [];
  if (!Number.isInteger(settings.maxRows) || settings.maxRows < 1)
    problems.push('maxRows must be a whole number ≥ 1');
  if (
    !Number.isInteger(settings.finalisePartRows) ||
    settings.finalisePartRows < 1 ||
    settings.finalisePartRows > MAX_FINALISE_PART_ROWS
  )
    problems.push(`finalisePartRows must be a whole number from 1 to ${MAX_FINALISE_PART_ROWS}`);
  else if (Math.ceil(settings.maxRows / settings.finalisePartRows) > MAX_FINALISE_PARTS)
    problems.push(
      `finalisePartRows must be at least maxRows / ${MAX_FINALISE_PARTS} (${Math.ceil(settings.maxRows / MAX_FINALISE_PARTS)}), so a list is finalised in at most ${MAX_FINALISE_PARTS} parts`,
    );
  return problems;
}

/** Checks settings where they are given, naming what is wrong. */
export function validateSettings(settings: PipelineSettings): PipelineSettings {
  const problems: string[] = [
    ...bureauProblems(settings),
    ...alertProblems(settings),
    ...switchProblems(settings),
    ...textProblems(settings),
    ...sizeProblems(settings),
  ];
  if (!Number.isInteger(settings.workerConcurrency) || settings.workerConcurrency < 2) {
    problems.push('workerConcurrency must be a whole number ≥ 2 (the SQS event source minimum)');
  }
  if (!Number.isInteger(settings.callsPerInvocation) || settings.callsPerInvocation < 1)
    problems.push('callsPerInvocation must be ≥ 1');
  if (
    !Number.isInteger(settings.workerBatchSize) ||
    settings.workerBatchSize < 1 ||
    settings.workerBatchSize > 10
  ) {
    problems.push('workerBatchSize must be 1–10');
  }
  if (!(settings.freshnessHours >= 0)) problems.push('freshnessHours must be ≥ 0');
  if (
    !Number.isInteger(settings.retentionDays) ||
    settings.retentionDays < 1 ||
    settings.retentionDays > MAX_RETENTION_DAYS
  )
    problems.push(
      `retentionDays must be a whole number from 1 to ${MAX_RETENTION_DAYS} (reports hold negative information, which Brazilian consumer law lets no one keep beyond five years)`,
    );
  if (
    !Number.isInteger(settings.auditRetentionDays) ||
    settings.auditRetentionDays < 1 ||
    settings.auditRetentionDays > MAX_AUDIT_RETENTION_DAYS
  )
    problems.push(`auditRetentionDays must be a whole number from 1 to ${MAX_AUDIT_RETENTION_DAYS}`);
  if (!Number.isInteger(settings.maxAttempts) || settings.maxAttempts < 1)
    problems.push('maxAttempts must be ≥ 1');
  if (!(settings.bureauTimeoutSeconds > 0)) problems.push('bureauTimeoutSeconds must be > 0');
  if (
    !Number.isInteger(settings.maxReportBytes) ||
    settings.maxReportBytes < 64 * 1024 ||
    settings.maxReportBytes > 8 * 1024 * 1024
  )
    problems.push('maxReportBytes must be a whole number of bytes from 64 KiB to 8 MiB');
  if (!(settings.workerTimeoutSeconds >= settings.bureauTimeoutSeconds * 2)) {
    problems.push('workerTimeoutSeconds must be at least twice bureauTimeoutSeconds');
  }
  if (!Number.isInteger(settings.maxReceiveCount) || settings.maxReceiveCount <= settings.maxAttempts) {
    problems.push(
      'maxReceiveCount must be greater than maxAttempts, so retries settle items before the DLQ does',
    );
  }
  if (
    settings.approvalThreshold !== null &&
    !(Number.isSafeInteger(settings.approvalThreshold) && settings.approvalThreshold >= 0)
  )
    problems.push('approvalThreshold must be a whole number of documents ≥ 0, or null for no approval');
  if (!(Number.isFinite(settings.scoreChangePoints) && settings.scoreChangePoints >= 1))
    problems.push('scoreChangePoints must be ≥ 1');
  problems.push(...reviewSlaProblems(settings.reviewSla));
  if (problems.length > 0) throw new Error(`invalid pipeline settings: ${problems.join('; ')}`);
  return settings;
}

/** What is wrong with a review SLA, one line each: whole hours from 1 to thirty days, queues named by policy files. */
function reviewSlaProblems(sla: ReviewSla): string[] {
  const problems: string[] = [];
  const fits = (hours: number) => Number.isInteger(hours) && hours >= 1 && hours <= MAX_REVIEW_SLA_HOURS;
  if (!fits(sla.defaultHours))
    problems.push(`reviewSla.defaultHours must be a whole number of hours from 1 to ${MAX_REVIEW_SLA_HOURS}`);
  for (const [policy, hours] of Object.entries(sla.hoursByPolicy)) {
    if (!isPolicyName(policy))
      problems.push(`reviewSla.hoursByPolicy names ${JSON.stringify(policy)}, not a policy file`);
    if (!fits(hours))
      problems.push(
        `reviewSla.hoursByPolicy.${policy} must be a whole number of hours from 1 to ${MAX_REVIEW_SLA_HOURS}`,
      );
  }
  return problems;
}
