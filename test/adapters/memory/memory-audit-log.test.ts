import { MemoryAuditLog } from '../../../src/adapters/memory/memory-audit-log.ts';
import { describeAuditLogContract } from '../audit-log-contract.ts';

describeAuditLogContract('MemoryAuditLog', async () => new MemoryAuditLog());
