import type { AlertEventType, AlertSources } from '../src/contract/index.ts';

// Sample documents: valid check digits, nobody's (the CPF is the one public examples use; the CNPJ is a test one).
const CPF = '52998224725';
const CNPJ = '11444777000161';
const BATCH = '6f1c2a9e4b7d8c0e1f2a3b4c';
const PORTFOLIO_BATCH = '7a2d3b0f5c8e9d1f2a3b4c5d';

/**
 * One event of each detail-type, as the pipeline would publish it: what `webhook test` sends and the alerts page
 * shows (docs/alerts.md, written by scripts/alert-events-doc.ts).
 */
export const ALERT_SAMPLES: { readonly [Type in AlertEventType]: AlertSources[Type] } = {
  BatchCompleted: {
    batchId: BATCH,
    revision: 1,
    status: 'completed',
    counts: {
      rows: 4,
      screened: 2,
      cached: 0,
      duplicate: 1,
      invalid_document: 1,
      failed: 0,
      cancelled: 0,
      not_queried: 0,
    },
    keys: {
      summary: `results/${BATCH}/summary.csv`,
      reports: `results/${BATCH}/reports.jsonl`,
      manifest: `results/${BATCH}/manifest.json`,
    },
  },
  BatchAwaitingApproval: {
    batchId: BATCH,
    quote: {
      bureau: 'a',
      unique: 1500,
      reusable: 300,
      to_buy: 1200,
      price_per_query: 8.4,
      estimated_cost: 10080,
      currency: 'BRL',
      estimated_seconds: 120,
    },
    keys: { quote: `results/${BATCH}/quote.json` },
  },
  BudgetExhausted: {
    scope: 'month',
    used: 50_000,
    cap: 50_000,
    percent: 100,
    bureau: 'a',
    batchId: BATCH,
    month: '2026-11',
  },
  PolicyRejected: {
    name: 'pessoa-fisica.json',
    key: 'policies/pessoa-fisica.json',
    versionId: null,
    sha256: '3f0a6c1e9b2d4f5a6c7e8d9f0a1b2c3d4e5f60718293a4b5c6d7e8f9a0b1c2d3',
    problem: 'node "score rules": the expression score >= does not compile',
  },
  OverrideRecorded: {
    batchId: BATCH,
    row: 2,
    decision: 'approve',
    previousDecision: 'review',
    creditLimit: 5000,
    by: 'ana.souza@example.com',
    at: '2026-11-25T13:04:05.000Z',
    policy: 'pessoa-fisica.json',
  },
  PortfolioChanged: {
    batchId: PORTFOLIO_BATCH,
    revision: 1,
    portfolio: 'carteira-pj',
    counts: {
      decision_worsened: 1,
      decision_improved: 0,
      new_protest: 1,
      protest_cleared: 0,
      new_pending_debt: 0,
      pending_debt_cleared: 0,
      bounced_cheques_up: 0,
      score_drop: 1,
      score_rise: 0,
      status_change: 0,
      first_screening: 0,
    },
    documentsChanged: 2,
    worstChanges: [
      {
        row: 3,
        document: CNPJ,
        documentType: 'cnpj',
        kind: 'decision_worsened',
        before: 'approve',
        after: 'review',
        delta: '',
      },
      {
        row: 3,
        document: CNPJ,
        documentType: 'cnpj',
        kind: 'new_protest',
        before: '0',
        after: '2',
        delta: '+2',
      },
      {
        row: 1,
        document: CPF,
        documentType: 'cpf',
        kind: 'score_drop',
        before: '720',
        after: '610',
        delta: '-110',
      },
    ],
    keys: {
      changes: `results/${PORTFOLIO_BATCH}/changes.csv`,
      manifest: `results/${PORTFOLIO_BATCH}/manifest.json`,
    },
  },
  DocumentChanged: {
    batchId: PORTFOLIO_BATCH,
    revision: 1,
    portfolio: 'carteira-pj',
    row: 3,
    document: CNPJ,
    documentType: 'cnpj',
    kinds: ['decision_worsened', 'new_protest'],
    changes: [
      { kind: 'decision_worsened', before: 'approve', after: 'review', delta: '' },
      { kind: 'new_protest', before: '0', after: '2', delta: '+2' },
    ],
    keys: { changes: `results/${PORTFOLIO_BATCH}/changes.csv` },
  },
};
