import type { ConsoleRole } from '../../src/contract/console-roles.ts';
import type { BatchView } from '../../src/contract/console-schemas.ts';

/** Brazilian formats: R$ 1.234,56, 27/11/2026 14:05 (São Paulo time), 1.234. */
const money = new Intl.NumberFormat('pt-BR', { style: 'currency', currency: 'BRL' });
const count = new Intl.NumberFormat('pt-BR');
const when = new Intl.DateTimeFormat('pt-BR', {
  dateStyle: 'short',
  timeStyle: 'short',
  timeZone: 'America/Sao_Paulo',
});

export const formatMoney = (amount: number) => money.format(amount);
export const formatCount = (value: number) => count.format(value);
export const formatWhen = (iso: string) => when.format(new Date(iso));

/** A batch's status, as the people who follow it say it. */
export const STATUS_LABELS: Readonly<Record<BatchView['status'], string>> = {
  ingesting: 'Lendo o arquivo',
  awaiting_approval: 'Aguardando aprovação',
  running: 'Consultando',
  finalising: 'Gerando resultados',
  completed: 'Concluído',
  failed: 'Arquivo recusado',
};

/** What a batch is called on screen: the customer's file name, its portfolio, or its id. */
export const batchTitle = (batch: BatchView) =>
  batch.sourceName ?? (batch.portfolio === null ? batch.batchId : `Carteira ${batch.portfolio}`);

/** Settled documents of those to screen, as a share (0 while the file is still being read). */
export const progressOf = (batch: BatchView) =>
  batch.toScreen === null || batch.toScreen === 0
    ? batch.status === 'completed'
      ? 1
      : 0
    : batch.settled / batch.toScreen;

const ROLE_LABELS: Readonly<Record<ConsoleRole, string>> = {
  analyst: 'analista',
  manager: 'gestor de crédito',
  dpo: 'encarregado (LGPD)',
  admin: 'administrador',
};

/** A role as the console names it. */
export const roleLabel = (role: ConsoleRole) => ROLE_LABELS[role];
