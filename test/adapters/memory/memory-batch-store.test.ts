import { joinBatchStores } from '../../../src/adapters/batch-stores.ts';
import { memoryBatchStore, memoryBatchStoresOn } from '../../../src/adapters/memory/memory-batch-store.ts';
import { MemoryChargeBudget } from '../../../src/adapters/memory/memory-charge-budget.ts';
import { MemoryDecisionOverrides } from '../../../src/adapters/memory/memory-decision-overrides.ts';
import { MemoryDocumentPurchases } from '../../../src/adapters/memory/memory-document-purchases.ts';
import { MemorySubjectErasure } from '../../../src/adapters/memory/memory-subject-erasure.ts';
import { MemoryTables } from '../../../src/adapters/memory/memory-tables.ts';
import { describeBatchStoreContract } from '../batch-store-contract.ts';
import { describeChargeBudgetContract } from '../charge-budget-contract.ts';
import { describeDocumentPurchasesContract } from '../document-purchases-contract.ts';
import { describeSubjectErasureContract } from '../subject-erasure-contract.ts';

describeBatchStoreContract('BatchStore', async () => {
  let clock = Date.parse('2026-11-23T12:00:00.000Z');
  return {
    store: memoryBatchStore({ now: () => clock, pageSize: 3 }),
    advance: (milliseconds) => {
      clock += milliseconds;
    },
  };
});

describeChargeBudgetContract('MemoryChargeBudget', async () => ({
  budget: new MemoryChargeBudget(),
  store: memoryBatchStore(),
}));

describeDocumentPurchasesContract('MemoryDocumentPurchases', async () => {
  let clock = Date.parse('2026-11-23T12:00:00.000Z');
  return {
    purchases: new MemoryDocumentPurchases({ now: () => clock }),
    now: () => clock,
    advance: (milliseconds) => {
      clock += milliseconds;
    },
  };
});

describeSubjectErasureContract('MemorySubjectErasure', async () => {
  const tables = new MemoryTables();
  const purchases = new MemoryDocumentPurchases();
  const overrides = new MemoryDecisionOverrides();
  return {
    erasure: new MemorySubjectErasure({ tables, purchases, overrides }),
    store: joinBatchStores(memoryBatchStoresOn(tables)),
    purchases,
    overrides,
  };
});
