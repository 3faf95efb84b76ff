import { randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { GetObjectCommand, HeadObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { BUILT_IN_EMULATOR_ENDPOINT } from '../../emulator/service-emulator.ts';
import { createDeadLetterHandler } from '../../lambdas/dead-letter/dead-letter-handler.ts';
import { createDispatchHandler } from '../../lambdas/dispatch/dispatch-handler.ts';
import { createFinaliseHandler } from '../../lambdas/finalise/finalise-handler.ts';
import { createIngestHandler } from '../../lambdas/ingest/ingest-handler.ts';
import { createPolicyCheckHandler } from '../../lambdas/policy-check/policy-check-handler.ts';
import {
  auditBasisOf,
  bureauTransportSettings,
  ingestSettings,
  type PipelineAdapters,
  workerSettings,
} from '../../lambdas/shared/pipeline-adapters.ts';
import { createWorkerHandler } from '../../lambdas/worker/worker-handler.ts';
import { HmacDocumentKeys } from '../../src/adapters/audit/hmac-document-keys.ts';
import { joinBatchStores } from '../../src/adapters/batch-stores.ts';
import { LazyBureauGateway } from '../../src/adapters/bureau/lazy-bureau-gateway.ts';
import { zenCreditPolicyLoader } from '../../src/adapters/decision/zen-credit-policy.ts';
import { MemoryLogger } from '../../src/adapters/memory/memory-logger.ts';
import { RecordingEventPublisher } from '../../src/adapters/memory/recording-event-publisher.ts';
import { StaticTokenSource } from '../../src/adapters/memory/static-token-source.ts';
import { finaliseIfLast } from '../../src/application/completion/finalise-if-last.ts';
import { type FinaliseDependencies, finaliseBatch } from '../../src/application/finalise/finalise-batch.ts';
import type { IngestOutcome, UploadedObject } from '../../src/application/ingest/ingest-upload.ts';
import type { PortfolioRunOutcome } from '../../src/application/ingest/run-portfolio.ts';
import {
  resumeInterruptedBatches,
  type SweeperDependencies,
  type SweepReport,
  sweepStuckRows,
} from '../../src/application/sweeper/sweep-stuck-rows.ts';
import {
  type PipelineFunction,
  type PipelineSettings,
  POLICY_METADATA,
  type PolicyVerdict,
  policyKey,
  portfolioRunInput,
  sourceNameMetadata,
  stuckClaimSeconds,
  uploadKey,
  uploadNonce,
  validateSettings,
} from '../../src/contract/index.ts';
import type { BatchRecord } from '../../src/domain/batch/index.ts';
import { bureauEndpointOf, continuesAt } from '../../src/domain/bureau/index.ts';
import { type PortfolioSettings, portfolioKeys } from '../../src/domain/monitoring/index.ts';
import type {
  AuditLog,
  BatchStore,
  DocumentKeys,
  EventPublisher,
  Logger,
} from '../../src/domain/ports/index.ts';
import type { Bureau } from '../../src/domain/report/index.ts';
import { MAX_CHARGES_METADATA } from '../../src/domain/spend/index.ts';
import { type BatchProgress, batchProgress, downloadBatchResults, waitForBatch } from './batch-results.ts';
import { fanOutEvents } from './fan-out-events.ts';
import { type FollowOptions, followBatch } from './follow-batch.ts';
import { UploadWatcher } from './incoming-objects.ts';
import { openLocalAuditKey } from './local-audit-key.ts';
import { localEventSources } from './local-event-sources.ts';
import { adaptersOn, finaliseDependencies } from './local-handlers.ts';
import type {
  DownloadedResults,
  LocalBureauTarget,
  LocalPipelineOptions,
  UploadOptions,
} from './local-pipeline-options.ts';
import { LocalServices } from './local-services.ts';
import { objectCreatedEvent } from './s3-notification.ts';
import type { SqsEventSource } from './sqs-event-source.ts';
import { keepStateBureau } from './state-bureau.ts';

export type { BatchProgress } from './batch-results.ts';
export type { DownloadedResults, LocalPipelineOptions, UploadOptions } from './local-pipeline-options.ts';

const DEFAULT_SWEEP_INTERVAL_SECONDS = 30;

/** How many of the newest batches a resume looks at (the sweeper's own limit). */
export const RESUME_LOOKBACK = 1000;

/**
 * The whole pipeline on one machine, with the same handlers as in AWS: the local services (DynamoDB Local, fauxqs)
 * stands in for AWS, the S3 event is delivered to the ingest handler directly (fauxqs has no bucket
 * notifications), and SQS event sources feed the worker, dead-letter and finaliser handlers as Lambda would.
 */
export class LocalPipeline {
  readonly events = new RecordingEventPublisher();
  /** The audit log and the local audit key (kept in the state directory) that names documents in it. */
  readonly audit: { readonly log: AuditLog; readonly documentKeys: DocumentKeys };
  readonly logger: Logger;
  #sources: ReadonlyMap<PipelineFunction, SqsEventSource> = new Map();
  #ingest: ReturnType<typeof createIngestHandler>;
  readonly #policyCheck: ReturnType<typeof createPolicyCheckHandler>;
  readonly #adapters: PipelineAdapters;
  /** The four batch stores as one, for what reads across them (progress, results, resume). */
  readonly #store: BatchStore;
  #sweeper: SweeperDependencies;
  readonly #finalise: FinaliseDependencies;
  /** What the handlers publish to: {@link events}, and the run's webhooks. */
  readonly #published: EventPublisher;
  #resumed: SweepReport | null = null;
  #unfinished: readonly BatchRecord[] = [];

  private constructor(
    readonly stack: LocalServices,
    readonly settings: PipelineSettings,
    options: LocalPipelineOptions,
    auditKey: string,
  ) {
    this.logger = options.logger ?? new MemoryLogger();
    this.#stateDirectory = options.stateDirectory;
    const adapters = adaptersOn(stack, settings);
    this.#adapters = adapters;
    this.#store = joinBatchStores(adapters);
    this.bureauEndpoint = options.bureauEndpoint ?? bureauEndpointOf(options.bureauBaseUrl);
    this.audit = {
      log: adapters.auditLog,
      documentKeys: new HmacDocumentKeys(async () => auditKey),
    };
    this.#published = options.alsoPublishTo
      ? fanOutEvents([this.events, options.alsoPublishTo])
      : this.events;
    this.#base = { ...adapters, logger: this.logger, events: this.#published, audit: this.audit };
    this.#ingest = this.#ingestHandler();
    this.#policyCheck = createPolicyCheckHandler({ ...this.#base, policyLoader: zenCreditPolicyLoader });
    this.#sweeper = this.#sweeperOf();
    this.#finalise = finaliseDependencies(this.#base, settings);
  }

  /** Where this pipeline's bureau calls go, as its batches record it (see `bureauEndpointOf`). */
  bureauEndpoint: string;
  readonly #base: Omit<PipelineAdapters, 'bureau'> & {
    readonly logger: Logger;
    readonly events: EventPublisher;
    readonly audit: LocalPipeline['audit'];
  };

  /** Ingest records on each batch where this pipeline's bureau calls go. */
  #ingestHandler(): ReturnType<typeof createIngestHandler> {
    return createIngestHandler({
      ...this.#base,
      settings: ingestSettings(this.settings, this.bureauEndpoint),
    });
  }

  #sweeperOf(only?: ReadonlySet<string>): SweeperDependencies {
    const settings = { stuckClaimSeconds: stuckClaimSeconds(this.settings) };
    const continues = (batch: BatchRecord) =>
      this.continues(batch) && (only === undefined || only.has(batch.batchId));
    return { ...this.#adapters, logger: this.logger, settings, continues };
  }

  /**
   * Whether this pipeline may take a batch further: it was started against the bureau it calls (a batch stored
   * before endpoints were recorded ran against the bundled emulator).
   */
  continues(batch: BatchRecord): boolean {
    return continuesAt(batch, this.bureauEndpoint, BUILT_IN_EMULATOR_ENDPOINT);
  }

  /**
   * Starts the workers, the dead-letter handler and the finaliser, calling the bureau at `target`; first queues
   * again what an interrupted run on this state left of the batches started there (their queues were lost with
   * it). Batches started against another endpoint are left alone, for a run that calls it; with `batches`, so are
   * all but those (a command on one batch takes no other further). Once per pipeline.
   */
  async startWorkers(
    target: LocalBureauTarget,
    options: { readonly sweepIntervalSeconds?: number; readonly batches?: readonly string[] } = {},
  ): Promise<void> {
    if (this.#sources.size > 0) throw new Error('the local workers are already started');
    this.bureauEndpoint = target.bureauEndpoint ?? bureauEndpointOf(target.bureauBaseUrl);
    // A run that starts batches holds the state to its bureau; a command on named batches checked it (withTarget).
    if (this.#stateDirectory !== undefined && options.batches === undefined)
      await keepStateBureau(this.#stateDirectory, this.bureauEndpoint, this.store);
    this.#sweeper = this.#sweeperOf(options.batches && new Set(options.batches));
    this.#ingest = this.#ingestHandler();
    const bureau =
      target.bureau ??
      new LazyBureauGateway(
        new StaticTokenSource(target.token),
        bureauTransportSettings(this.settings, target.bureauBaseUrl),
      );
    const onInvocationError = (error: unknown) =>
      this.logger.error('invocation failed', { error: String(error) });
    const handlers = {
      worker: createWorkerHandler({
        ...this.#base,
        bureau,
        settings: workerSettings(this.settings, this.bureauEndpoint),
        policyLoader: zenCreditPolicyLoader,
      }),
      deadLetter: createDeadLetterHandler({ ...this.#base, auditBasis: auditBasisOf(this.settings) }),
      finalise: createFinaliseHandler(this.#finalise),
      dispatch: createDispatchHandler(this.#base),
    };
    this.#sources = localEventSources(this.stack, handlers, onInvocationError);
    // The queues of an interrupted run were lost with its process: what it left unsettled is queued again.
    if (this.#stateDirectory !== undefined) await this.#resume();
    for (const source of this.#sources.values()) source.start();
    this.#sweepEvery((options.sweepIntervalSeconds ?? DEFAULT_SWEEP_INTERVAL_SECONDS) * 1000);
  }

  readonly #stateDirectory: string | undefined;

  static async start(options: LocalPipelineOptions): Promise<LocalPipeline> {
    const settings = validateSettings(options.settings);
    const stack = await LocalServices.start(settings, {
      stateDirectory: options.stateDirectory,
      fresh: options.fresh,
      strict: options.strict,
      sharedDynamoDb: options.sharedDynamoDb,
      engine: options.engine,
    });
    let auditKey: string;
    try {
      // Before anything runs: a run with a lost key would audit its purchases under names no one can find.
      auditKey = await openLocalAuditKey(options.stateDirectory);
    } catch (error) {
      await stack.stop();
      throw error;
    }
    const pipeline = new LocalPipeline(stack, settings, options, auditKey);
    if (options.eventSources !== false) {
      try {
        await pipeline.startWorkers(options, { sweepIntervalSeconds: options.sweepIntervalSeconds });
      } catch (error) {
        await pipeline.stop();
        throw error;
      }
    }
    if (options.watchUploads) {
      const { s3 } = stack.clients;
      const bucket = stack.resources.bucketName;
      pipeline.#watcher = await UploadWatcher.start(
        s3,
        bucket,
        (object) => pipeline.deliverUploadEvent({ bucket, ...object, sequencer: object.eTag }),
        (error) => pipeline.logger.error('upload watcher failed', { error: String(error) }),
      );
    }
    return pipeline;
  }

  async #resume(): Promise<void> {
    // What the interrupted run left, as it left it, before the workers take it further.
    this.#unfinished = (await this.store.listBatches(RESUME_LOOKBACK)).filter(
      (batch: BatchRecord) => batch.status !== 'completed' && batch.status !== 'failed',
    );
    const report = await resumeInterruptedBatches(this.#sweeper);
    if (report.requeued > 0 || report.finalisations > 0) this.#resumed = report;
  }

  /**
   * The batches an earlier run on this state left unfinished (interrupted, or stopped to wait for approval), newest
   * first, as they were when this run started; empty without a state directory.
   */
  get unfinishedBatches(): readonly BatchRecord[] {
    return this.#unfinished;
  }

  /** What an interrupted earlier run on this state left unfinished and `start` queued again; null if nothing. */
  get resumed(): SweepReport | null {
    return this.#resumed;
  }

  #sweepTimer: NodeJS.Timeout | null = null;
  #sweeping: Promise<unknown> = Promise.resolve();

  #sweepEvery(intervalMs: number): void {
    const tick = () => {
      this.#sweeping = this.sweep()
        .catch((error: unknown) => this.logger.error('sweep failed', { error: String(error) }))
        .finally(() => {
          if (this.#sweepTimer !== null) this.#sweepTimer = setTimeout(tick, intervalMs);
        });
    };
    this.#sweepTimer = setTimeout(tick, intervalMs);
  }

  /** Queues again the rows whose claim ran out with no message left (what the scheduled sweeper does in AWS). */
  sweep(now?: number): Promise<SweepReport> {
    return sweepStuckRows(now === undefined ? this.#sweeper : { ...this.#sweeper, now: () => now });
  }

  #watcher: UploadWatcher | null = null;

  get store(): BatchStore {
    return this.#store;
  }

  /** Invocations of the worker, dead-letter and finaliser handlers so far (diagnostics and benchmarks). */
  get invocations(): { worker: number; deadLetter: number; finalise: number } {
    const invocations = (name: PipelineFunction) => this.#sources.get(name)?.invocations ?? 0;
    return {
      worker: invocations('worker'),
      deadLetter: invocations('deadLetter'),
      finalise: invocations('finalise'),
    };
  }

  /** The adapters the handlers use (tests drive use cases with them directly). */
  get adapters() {
    return { ...this.#adapters, events: this.#published };
  }

  /**
   * Uploads a customer list under `incoming/<bureau>/` (`incoming/<bureau>/priority/` with `priority`) and delivers
   * the S3 event to the ingest handler.
   */
  async submit(file: string, bureau: Bureau, options: UploadOptions = {}): Promise<IngestOutcome> {
    return this.deliverUploadEvent(await this.upload(file, bureau, options));
  }

  /**
   * Puts a credit policy where the customer keeps theirs (`policies/<name>`), for uploads that name it, and delivers
   * the notification S3 would to its check: the verdict says whether uploads may use it.
   */
  async putPolicy(name: string, contents: Uint8Array): Promise<PolicyVerdict | null> {
    const key = policyKey(name);
    const bucket = this.stack.resources.bucketName;
    await this.stack.clients.s3.send(
      new PutObjectCommand({ Bucket: bucket, Key: key, Body: contents, ContentType: 'application/json' }),
    );
    const [verdict] = await this.#policyCheck(objectCreatedEvent({ bucket, key, size: contents.length }));
    return verdict ?? null;
  }

  /** Puts a file where customers drop theirs, without telling ingest (what S3 does before its notification). */
  async upload(
    file: string,
    bureau: Bureau,
    options: UploadOptions = {},
  ): Promise<UploadedObject & { size: number }> {
    const key = uploadKey(bureau, basename(file), new Date(), uploadNonce(), options.priority);
    const { s3 } = this.stack.clients;
    const bucket = this.stack.resources.bucketName;
    await new Upload({
      client: s3,
      params: {
        Bucket: bucket,
        Key: key,
        Body: createReadStream(file),
        Metadata: {
          ...sourceNameMetadata(basename(file)),
          ...(options.maxCharges === undefined ? {} : { [MAX_CHARGES_METADATA]: String(options.maxCharges) }),
          ...(options.policy === undefined ? {} : { [POLICY_METADATA]: options.policy }),
        },
      },
    }).done();
    const head = await s3.send(new HeadObjectCommand({ Bucket: bucket, Key: key }));
    return {
      bucket,
      key,
      eTag: (head.ETag ?? '').replaceAll('"', ''),
      sequencer: randomBytes(8).toString('hex').toUpperCase(),
      size: (await stat(file)).size,
    };
  }

  /** Delivers the S3 `ObjectCreated` event of an upload to the ingest handler, as S3 would. */
  async deliverUploadEvent(upload: UploadedObject & { size: number }): Promise<IngestOutcome> {
    const event = objectCreatedEvent(upload);
    const [outcome] = await this.#ingest(event);
    if (!outcome || !('batchId' in outcome)) throw new Error(`the upload ${upload.key} was not ingested`);
    return outcome;
  }

  /** Registers a portfolio: its list at `portfolios/<name>.csv` and, when given, its settings file. */
  async putPortfolio(name: string, file: string, settings?: PortfolioSettings): Promise<void> {
    const keys = portfolioKeys(name);
    const { s3 } = this.stack.clients;
    const bucket = this.stack.resources.bucketName;
    await new Upload({
      client: s3,
      params: { Bucket: bucket, Key: keys.list, Body: createReadStream(file) },
    }).done();
    if (settings !== undefined) {
      await s3.send(
        new PutObjectCommand({ Bucket: bucket, Key: keys.settings, Body: JSON.stringify(settings, null, 2) }),
      );
    }
  }

  /** Starts a re-screen of a registered portfolio, as its schedule would. */
  async runPortfolio(name: string): Promise<PortfolioRunOutcome> {
    // The input a schedule gives ingest, with a local run id where Scheduler puts its execution id.
    const input = portfolioRunInput(name, { runId: `local-${randomBytes(8).toString('hex')}` });
    const [outcome] = await this.#ingest(JSON.parse(input) as { portfolio: string; runId: string });
    if (!outcome) throw new Error(`the portfolio ${name} was not run`);
    return outcome;
  }

  progress(batchId: string): Promise<BatchProgress> {
    return batchProgress(this.#store, batchId);
  }

  /** Resolves when the batch has its manifest, reporting progress on the way. */
  waitForCompletion(
    batchId: string,
    options: { onProgress?: (progress: BatchProgress) => void; signal?: AbortSignal; pollMs?: number } = {},
  ): Promise<BatchProgress> {
    return waitForBatch(this.#store, batchId, options);
  }

  /**
   * Follows a batch to its end, whatever interrupted it: a batch whose rows are all settled is finalised, and one
   * that cannot end rejects with a {@link BatchStalledError} saying why (see {@link followBatch}).
   */
  follow(batchId: string, options: FollowOptions = {}): Promise<BatchProgress> {
    return followBatch(
      batchId,
      {
        getBatch: (id) => this.store.getBatch(id),
        finaliseIfLast: (id) => finaliseIfLast(id, this.#adapters),
        finalise: (id) => finaliseBatch(id, this.#finalise),
      },
      options,
    );
  }

  /** Copies the batch's result files (and the manifest) into `directory`. */
  async downloadResults(batchId: string, directory: string): Promise<DownloadedResults> {
    return { directory, manifest: await downloadBatchResults(this.#adapters.objects, batchId, directory) };
  }

  async readText(key: string): Promise<string> {
    const result = await this.stack.clients.s3.send(
      new GetObjectCommand({ Bucket: this.stack.resources.bucketName, Key: key }),
    );
    return (await result.Body?.transformToString('utf8')) ?? '';
  }

  async stop(): Promise<void> {
    if (this.#sweepTimer !== null) clearTimeout(this.#sweepTimer);
    this.#sweepTimer = null;
    await Promise.all([this.#watcher?.stop(), this.#sweeping]);
    await Promise.all([...this.#sources.values()].map((source) => source.stop()));
    await this.stack.stop();
  }
}
