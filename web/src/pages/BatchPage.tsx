import { useState } from 'react';
import type { ConsoleIdentity } from '../../../src/contract/console-roles.ts';
import type { BatchView, MonthSpend, RedriveResult } from '../../../src/contract/console-schemas.ts';
import { ApiError, callApi } from '../api.ts';
import { batchTitle, formatCount, formatMoney, formatWhen, progressOf, STATUS_LABELS } from '../format.ts';
import { inside } from '../navigation.ts';
import { useApi } from '../useApi.ts';
import { BatchResults } from './BatchResults.tsx';

const unfinished = (batch: BatchView | null) =>
  batch !== null && batch.status !== 'completed' && batch.status !== 'failed';

/** One batch: where it stands, what it bought against its quote, and what a manager may do with it. */
export function BatchPage({ batchId, identity }: { batchId: string; identity: ConsoleIdentity }) {
  const {
    value: batch,
    problem,
    reload,
  } = useApi(() => callApi<BatchView>('batch', { params: { batchId } }), batchId, unfinished);
  return (
    <>
      <p>
        <a href="/" onClick={inside('/')}>
          ← Lotes
        </a>
      </p>
      {problem && <p role="alert">{problem}</p>}
      {batch && (
        <>
          <h1>{batchTitle(batch)}</h1>
          <p className="muted">
            Lote {batch.batchId} · birô {batch.bureau.toUpperCase()} · criado em {formatWhen(batch.createdAt)}
            {batch.completedAt && ` · concluído em ${formatWhen(batch.completedAt)}`}
          </p>
          <p>
            <span className={`status status-${batch.status}`}>{STATUS_LABELS[batch.status]}</span>
            {batch.cancelRequested && <span className="muted"> · cancelamento pedido</span>}
          </p>
          {batch.failure && <p role="alert">Arquivo recusado: {batch.failure.message}</p>}
          <progress max={1} value={progressOf(batch)} aria-label="Progresso do lote" />
          <Counts batch={batch} />
          <Spend batch={batch} />
          {batch.status === 'completed' && <BatchResults batch={batch} />}
          {identity.roles.includes('manager') && <ManagerActions batch={batch} onChanged={reload} />}
        </>
      )}
    </>
  );
}

function Counts({ batch }: { batch: BatchView }) {
  const counts: [string, number | null][] = [
    ['Linhas', batch.rows],
    ['Documentos a consultar', batch.toScreen],
    ['Consultados', batch.screened],
    ['Reaproveitados', batch.cached],
    ['Inválidos', batch.invalid],
    ['Repetidos', batch.duplicates],
    ['Falharam', batch.failed],
    ['Cancelados', batch.cancelled],
    ['Não consultados', batch.notQueried],
  ];
  return (
    <section aria-labelledby="counts">
      <h2 id="counts">Contagens</h2>
      <dl className="counts">
        {counts.map(([label, value]) => (
          <div key={label}>
            <dt>{label}</dt>
            <dd>{value === null ? '—' : formatCount(value)}</dd>
          </div>
        ))}
      </dl>
    </section>
  );
}

/** What the month has bought from the batch's bureau, against its cap: what an approval adds to. */
function MonthSpendOf({ bureau }: { bureau: BatchView['bureau'] }) {
  const { value } = useApi(() => callApi<MonthSpend>('spend'), 'spend');
  const spent = value?.bureaus.find((line) => line.bureau === bureau);
  if (!spent) return null;
  return (
    <div>
      <dt>Este mês, birô {bureau.toUpperCase()}</dt>
      <dd>
        {formatCount(spent.queries)} consultas ({formatMoney(spent.cost)})
        {spent.cap === null ? ', sem limite mensal' : ` de um limite de ${formatCount(spent.cap)}`}
      </dd>
    </div>
  );
}

function Spend({ batch }: { batch: BatchView }) {
  const { quote } = batch;
  return (
    <section aria-labelledby="spend">
      <h2 id="spend">Gasto</h2>
      {quote === null ? (
        <p>Sem orçamento (lote anterior aos orçamentos).</p>
      ) : (
        <dl className="counts">
          <div>
            <dt>Orçado</dt>
            <dd>
              {formatMoney(quote.estimatedCost)} ({formatCount(quote.toBuy)} consultas a{' '}
              {formatMoney(quote.pricePerQuery)})
            </dd>
          </div>
          <div>
            <dt>Gasto até agora</dt>
            <dd>{formatMoney(batch.spent ?? 0)}</dd>
          </div>
          <div>
            <dt>Limite do lote</dt>
            <dd>
              {batch.maxCharges === null
                ? 'sem limite próprio'
                : `${formatCount(batch.maxCharges)} consultas`}
            </dd>
          </div>
          <MonthSpendOf bureau={batch.bureau} />
          {batch.approval && (
            <div>
              <dt>Aprovação</dt>
              <dd>
                {batch.approval === 'approved' ? 'aprovado' : 'rejeitado'}
                {batch.approvalBy ? ` por ${batch.approvalBy}` : ' pela linha de comando'}
              </dd>
            </div>
          )}
        </dl>
      )}
    </section>
  );
}

function ManagerActions({ batch, onChanged }: { batch: BatchView; onChanged: () => Promise<void> }) {
  const [message, setMessage] = useState<string | null>(null);
  const act = async (action: () => Promise<string>) => {
    try {
      setMessage(await action());
    } catch (error) {
      setMessage(error instanceof ApiError ? error.message : 'o console não respondeu; tente de novo');
    }
    await onChanged();
  };
  const params = { batchId: batch.batchId };
  const decide = (decision: 'approved' | 'rejected') =>
    act(async () => {
      await callApi('approval', { params, body: { decision } });
      return decision === 'approved'
        ? 'Lote aprovado: as consultas começam.'
        : 'Lote rejeitado: nada foi comprado.';
    });
  const cancel = () =>
    act(async () => {
      const { cancelledRows } = await callApi<{ cancelledRows: number }>('cancel', { params });
      return `Lote cancelado: ${formatCount(cancelledRows)} documentos não serão consultados.`;
    });
  const redrive = (chargeUnknown: boolean) =>
    act(async () => {
      const done = await callApi<RedriveResult>('redrive', { params, body: { chargeUnknown } });
      return done.requeued === 0
        ? 'Nenhuma falha a reenviar desse tipo.'
        : `${formatCount(done.requeued)} falhas reenviadas ao birô; o lote roda de novo.`;
    });
  const redrivable = batch.status === 'completed' && batch.failed > 0;
  if (batch.status !== 'awaiting_approval' && batch.status !== 'running' && !redrivable && message === null)
    return null;
  return (
    <section aria-labelledby="actions">
      <h2 id="actions">Ações</h2>
      {batch.status === 'awaiting_approval' && (
        <div className="actions">
          <button type="button" onClick={() => decide('approved')}>
            Aprovar {batch.quote ? formatMoney(batch.quote.estimatedCost) : ''}
          </button>
          <button type="button" className="danger" onClick={() => decide('rejected')}>
            Rejeitar
          </button>
        </div>
      )}
      {batch.status === 'running' && !batch.cancelRequested && (
        <div className="actions">
          <button type="button" className="danger" onClick={cancel}>
            Cancelar lote
          </button>
        </div>
      )}
      {redrivable && (
        <div className="actions">
          <button type="button" className="secondary" onClick={() => redrive(false)}>
            Reenviar as falhas não cobradas
          </button>
          {/* A call that may have been charged is bought again only on a person's word: this one. */}
          <button type="button" className="danger" onClick={() => redrive(true)}>
            Reenviar as que podem ter sido cobradas
          </button>
        </div>
      )}
      {message && <p role="status">{message}</p>}
    </section>
  );
}
