import { useState } from 'react';
import type { ConsoleIdentity } from '../../../src/contract/console-roles.ts';
import type { BatchPage, BatchView } from '../../../src/contract/console-schemas.ts';
import { callApi } from '../api.ts';
import { batchTitle, formatCount, formatMoney, formatWhen, progressOf, STATUS_LABELS } from '../format.ts';
import { inside } from '../navigation.ts';
import { useApi } from '../useApi.ts';

const PAGE_SIZE = 20;
const FINISHED = new Set<BatchView['status']>(['completed', 'failed']);
const anyUnfinished = (page: BatchPage) => page.batches.some((batch) => !FINISHED.has(batch.status));

/** The batches, newest first: status, live progress, counts and spend against the quote. */
export function BatchesPage({ identity }: { identity: ConsoleIdentity }) {
  const [page, setPage] = useState(0);
  const mayRead = identity.roles.some((role) => role === 'analyst' || role === 'manager');
  const { value, problem } = useApi(
    () =>
      mayRead ? callApi<BatchPage>('batches', { query: { limit: PAGE_SIZE, page } }) : Promise.resolve(null),
    `${page} ${mayRead}`,
    (read) => read !== null && anyUnfinished(read),
  );
  if (!mayRead)
    return (
      <>
        <h1>Lotes</h1>
        <p>Os lotes são vistos por analistas e gestores de crédito; seu acesso não inclui esses papéis.</p>
      </>
    );
  return (
    <>
      <h1>Lotes</h1>
      {problem && <p role="alert">{problem}</p>}
      {value && value.batches.length === 0 && <p>Nenhum lote ainda.</p>}
      {value && value.batches.length > 0 && <BatchTable batches={value.batches} />}
      {value && (value.page > 0 || value.hasMore) && (
        <nav className="pager" aria-label="Páginas de lotes">
          <button
            type="button"
            className="secondary"
            disabled={value.page === 0}
            onClick={() => setPage(page - 1)}
          >
            Mais recentes
          </button>
          <span>Página {value.page + 1}</span>
          <button
            type="button"
            className="secondary"
            disabled={!value.hasMore}
            onClick={() => setPage(page + 1)}
          >
            Mais antigos
          </button>
        </nav>
      )}
    </>
  );
}

function BatchTable({ batches }: { batches: readonly BatchView[] }) {
  return (
    <div className="table-scroll">
      <table className="stacking">
        <caption className="visually-hidden">Lotes, do mais recente ao mais antigo</caption>
        <thead>
          <tr>
            <th scope="col">Lote</th>
            <th scope="col">Situação</th>
            <th scope="col">Progresso</th>
            <th scope="col" className="number">
              Linhas
            </th>
            <th scope="col" className="number">
              Gasto
            </th>
            <th scope="col">Criado em</th>
          </tr>
        </thead>
        <tbody>
          {batches.map((batch) => (
            <BatchLine key={batch.batchId} batch={batch} />
          ))}
        </tbody>
      </table>
    </div>
  );
}

function BatchLine({ batch }: { batch: BatchView }) {
  const share = progressOf(batch);
  return (
    <tr>
      <th scope="row">
        <a href={`/lotes/${batch.batchId}`} onClick={inside(`/lotes/${batch.batchId}`)}>
          {batchTitle(batch)}
        </a>
        <div className="muted">{batch.batchId}</div>
      </th>
      <td data-label="Situação">
        <span className={`status status-${batch.status}`}>{STATUS_LABELS[batch.status]}</span>
      </td>
      <td data-label="Progresso">
        <progress max={1} value={share} aria-label={`Progresso do lote ${batchTitle(batch)}`} />
        <div className="muted">
          {batch.toScreen === null ? '—' : `${formatCount(batch.settled)} de ${formatCount(batch.toScreen)}`}
        </div>
      </td>
      <td className="number" data-label="Linhas">
        {formatCount(batch.rows)}
      </td>
      <td className="number" data-label="Gasto">
        {batch.spent === null ? '—' : formatMoney(batch.spent)}
        {batch.quote && <div className="muted">de {formatMoney(batch.quote.estimatedCost)}</div>}
      </td>
      <td data-label="Criado em">{formatWhen(batch.createdAt)}</td>
    </tr>
  );
}
