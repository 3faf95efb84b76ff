/**
 * What the pipeline announces (EventBridge on AWS, webhooks on a laptop): the events a use case publishes, in the
 * domain's words. How they travel (envelope, event id, masking) is the contract's (src/contract/alert-events.ts).
 */
import type { BatchCounts } from '../batch/batch-model.ts';
import type { DocumentType } from '../documents/index.ts';
import type { ChangeCounts, ChangeKind, ReportChange } from '../monitoring/index.ts';
import type { Bureau } from '../report/index.ts';
import type { BudgetAlert, Quote } from '../spend/index.ts';

export interface BatchCompletedEvent {
  readonly batchId: string;
  /** 1, or the redrive that produced these results. */
  readonly revision: number;
  readonly status: string;
  readonly counts: BatchCounts;
  readonly keys: { readonly summary: string; readonly reports: string; readonly manifest: string };
}

/** One change of one document, as an alert lists it (the document in clear: the contract masks it). */
export interface DocumentChange {
  readonly row: number;
  readonly document: string;
  readonly documentType: DocumentType;
  readonly kind: ChangeKind;
  readonly before: string;
  readonly after: string;
  readonly delta: string;
}

/** A re-screen found changes (sent when it completes, with zero counts too, so silence means no run). */
export interface PortfolioChangedEvent {
  readonly batchId: string;
  readonly revision: number;
  readonly portfolio: string;
  /** Changes per kind; a document can count under several kinds. */
  readonly counts: ChangeCounts;
  /** Documents with at least one change (first screenings included). */
  readonly documentsChanged: number;
  /** The most severe changes first (`CHANGE_SEVERITY`, then the size of the move), at most the configured number. */
  readonly worstChanges: readonly DocumentChange[];
  readonly keys: { readonly changes: string; readonly manifest: string };
}

/** One document of a re-screen changed in a way alerts are asked for (`DocumentChanged`). */
export interface DocumentChangedEvent {
  readonly batchId: string;
  readonly revision: number;
  readonly portfolio: string;
  readonly row: number;
  readonly document: string;
  readonly documentType: DocumentType;
  /** The kinds of its changes, each once, in the order of `changes`. */
  readonly kinds: readonly ChangeKind[];
  /** Every change of the document in this re-screen, selected kinds or not. */
  readonly changes: readonly ReportChange[];
  readonly keys: { readonly changes: string };
}

/** A spending cap passed 80 % or reached 100 % (`BudgetExhausted`). */
export interface BudgetExhaustedEvent extends BudgetAlert {
  readonly bureau: Bureau;
  readonly batchId: string;
  readonly month: string;
}

/** A batch would buy more than the approval threshold: it waits for a person (`BatchAwaitingApproval`). */
export interface BatchAwaitingApprovalEvent {
  readonly batchId: string;
  readonly quote: Quote;
  readonly keys: { readonly quote: string };
}

/**
 * A credit policy uploaded under `policies/` does not load (`PolicyRejected`): no batch is decided with it, and
 * an upload that names it is refused before anything is bought.
 */
export interface PolicyRejectedEvent {
  /** The policy's name (its file name under `policies/`). */
  readonly name: string;
  readonly key: string;
  /** The object version S3 gave the upload; null where the bucket keeps none. */
  readonly versionId: string | null;
  /** SHA-256 of the refused bytes, hex. */
  readonly sha256: string;
  /** One line: why it was refused, naming the node where there is one. */
  readonly problem: string;
}

/** A person decided a row the policy had decided (`credit-screen override`). */
export interface OverrideRecordedEvent {
  readonly batchId: string;
  readonly row: number;
  readonly decision: 'approve' | 'decline';
  /** The policy's decision, which stays in the batch's files. */
  readonly previousDecision: 'approve' | 'review' | 'decline';
  readonly creditLimit: number | null;
  /** Who decided (a name or an e-mail); the reason stays with the override, not in the event. */
  readonly by: string;
  readonly at: string;
  /** The policy that decided the batch, by its name. */
  readonly policy: string | null;
}

export interface EventPublisher {
  batchCompleted(event: BatchCompletedEvent): Promise<void>;
  policyRejected(event: PolicyRejectedEvent): Promise<void>;
  overrideRecorded(event: OverrideRecordedEvent): Promise<void>;
  batchAwaitingApproval(event: BatchAwaitingApprovalEvent): Promise<void>;
  portfolioChanged(event: PortfolioChangedEvent): Promise<void>;
  /** Several `DocumentChanged` at once (a re-screen may have thousands; they travel in batches). */
  documentsChanged(events: readonly DocumentChangedEvent[]): Promise<void>;
  budgetExhausted(event: BudgetExhaustedEvent): Promise<void>;
}
