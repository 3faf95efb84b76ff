import { DEFAULT_SETTINGS } from '../../contract/index.ts';
import type { ChangeThresholds } from '../../domain/monitoring/index.ts';
import type {
  AuditLog,
  BatchRecords,
  BatchRows,
  CreditPolicyLoader,
  DocumentKeys,
  EventPublisher,
  Logger,
  ObjectStore,
  ReportHistory,
  WorkQueue,
} from '../../domain/ports/index.ts';
import type { ReportLanguage } from '../batch-report/index.ts';
import type { ChangeAlertSettings } from './change-alerts.ts';

/** What the finaliser reads, writes and announces with. */
export interface FinaliseDependencies {
  readonly batchRecords: BatchRecords;
  readonly batchRows: BatchRows;
  readonly reportHistory: ReportHistory;
  readonly objects: ObjectStore;
  readonly events: EventPublisher;
  readonly logger: Logger;
  /** Where a batch too big for one invocation sends its parts, and the message that joins them. */
  readonly queue: Pick<WorkQueue, 'sendFinalise'>;
  /** Rows per part of a big batch's finalisation. @default DEFAULT_SETTINGS.finalisePartRows */
  readonly partRows?: number;
  /** What counts as a change in a re-screen's change report. @default DEFAULT_CHANGE_THRESHOLDS */
  readonly changeThresholds?: ChangeThresholds;
  /** Language of `report.html`. @default DEFAULT_REPORT_LANGUAGE (Brazilian Portuguese) */
  readonly reportLanguage?: ReportLanguage;
  /** Compiles a batch's credit policy; a batch with a policy and no loader decides every row `review`. */
  readonly policyLoader?: CreditPolicyLoader;
  /**
   * What a re-screen's alerts carry: the change kinds that send a `DocumentChanged`, and how many changes
   * `PortfolioChanged` lists. @default DEFAULT_CHANGE_ALERTS
   */
  readonly changeAlerts?: ChangeAlertSettings;
  /** Where the decisions the finaliser makes itself are recorded (the workers record theirs). */
  readonly audit?: { readonly log: AuditLog; readonly documentKeys: DocumentKeys };
}

/** The alerts of a deployment that configured none (the settings' defaults). */
export const DEFAULT_CHANGE_ALERTS: ChangeAlertSettings = {
  changeKinds: DEFAULT_SETTINGS.alertChangeKinds,
  worstChanges: DEFAULT_SETTINGS.alertWorstChanges,
};
