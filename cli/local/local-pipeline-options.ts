/** What a local pipeline is started with. */
import type { BatchManifest, PipelineSettings } from '../../src/contract/index.ts';
import type { BureauGateway, EventPublisher, Logger } from '../../src/domain/ports/index.ts';
import type { LocalEngine, SharedDynamoDb } from './local-services.ts';
import type { StrictModeOptions } from './strict-aws-proxy.ts';

/** The bureau a local pipeline's workers call. */
export interface LocalBureauTarget {
  /** Base URL of the bureau API (the embedded emulator's, or a real gateway's with --live). */
  readonly bureauBaseUrl: string;
  /** The token the pipeline sends. */
  readonly token: string;
  /** Replace the HTTP bureau client (tests inject faults with it). */
  readonly bureau?: BureauGateway;
  /**
   * Where the calls go, as batches record it: a batch is continued only by a pipeline calling where it was started.
   * The bundled emulator, on a new port each run, is one endpoint whatever its port.
   * @default bureauEndpointOf(bureauBaseUrl)
   */
  readonly bureauEndpoint?: string;
}

export interface LocalPipelineOptions extends LocalBureauTarget {
  readonly settings: PipelineSettings;
  readonly logger?: Logger;
  /** Start the SQS event sources (workers, dead letters, finaliser). Tests that drive handlers themselves say no. @default true */
  readonly eventSources?: boolean;
  /** Keep data between runs in this directory (see LocalStateDirectory). @default in memory only */
  readonly stateDirectory?: string;
  /** Empty the state directory first. @default false */
  readonly fresh?: boolean;
  /**
   * Deliver S3 notifications for objects others put in the bucket (`incoming/` to ingest, as S3 would), by
   * watching it: fauxqs sends none. For clients that talk to the local services as to a deployed one.
   * @default false
   */
  readonly watchUploads?: boolean;
  /**
   * How often the sweeper looks for stuck rows while the workers run. Shorter than in AWS: local runs last
   * minutes, and their claims count as stuck after two (six times the worker timeout).
   * @default 30
   */
  readonly sweepIntervalSeconds?: number;
  /**
   * Strict mode: the pipeline's clients go through a StrictAwsProxy (DynamoDB's transaction conflicts, injected
   * AWS faults, duplicate deliveries); `stack.strictStats()` reports what it did. @default off
   */
  readonly strict?: StrictModeOptions;
  /** Run on this DynamoDB Local, already running, in a table of its own (not with a state directory). @default one of its own */
  readonly sharedDynamoDb?: SharedDynamoDb;
  /** Where the table lives: DynamoDB Local, or this process (`memory`: no Java, nothing kept). @default 'dynamodb-local' */
  readonly engine?: LocalEngine;
  /** Where events go besides {@link LocalPipeline.events} (the run's webhooks). @default nowhere else */
  readonly alsoPublishTo?: EventPublisher;
}

/** How a customer list is uploaded: what its S3 metadata and key ask of its batch. */
export interface UploadOptions {
  /** The batch's own spending cap (S3 metadata `max-charges`). */
  readonly maxCharges?: number;
  /** Ask for the priority lane: the file goes under `incoming/<bureau>/priority/`. */
  readonly priority?: boolean;
  /** The credit policy (a name under `policies/`, put there by `LocalPipeline.putPolicy`) that decides it. */
  readonly policy?: string;
}

/** Where a batch's results were written, and its manifest. */
export interface DownloadedResults {
  readonly directory: string;
  readonly manifest: BatchManifest;
}
