import { useState } from 'react';
import type { ReviewerList } from '../../../src/contract/console-case-schemas.ts';
import type { ConsoleIdentity } from '../../../src/contract/console-roles.ts';
import type { OverrideView, ReviewPage as Page, ReviewQuery } from '../../../src/contract/console-schemas.ts';
import { callApi } from '../api.ts';
import { formatCount } from '../format.ts';
import { useApi } from '../useApi.ts';
import { ReviewCard } from './ReviewCard.tsx';

const PAGE_SIZE = 50;

const HOLDERS: readonly { readonly value: ReviewQuery['assigned']; readonly label: string }[] = [
  { value: 'anyone', label: 'Todas' },
  { value: 'me', label: 'Minhas' },
  { value: 'nobody', label: 'Livres' },
];

/**
 * The rows waiting for a person, oldest batch first: filtered by who holds them, their queue (the policy that sent
 * them) and whether they are late; each with the policy's answer, who holds it, and a form to decide it.
 */
export function ReviewPage({ identity }: { identity: ConsoleIdentity }) {
  const [done, setDone] = useState<string | null>(null);
  const [assigned, setAssigned] = useState<ReviewQuery['assigned']>('anyone');
  const [queue, setQueue] = useState('');
  const [overdue, setOverdue] = useState(false);
  // A batch's results link here with its id (never a document): its rows only.
  const batchId = new URLSearchParams(window.location.search).get('lote');
  const query = {
    limit: PAGE_SIZE,
    assigned,
    overdue: String(overdue),
    ...(queue ? { queue } : {}),
    ...(batchId ? { batchId } : {}),
  };
  const { value, problem, reload } = useApi(
    () => callApi<Page>('review', { query }),
    `review ${JSON.stringify(query)}`,
  );
  const isManager = identity.roles.includes('manager');
  const reviewers = useApi(
    () => (isManager ? callApi<ReviewerList>('reviewers') : Promise.resolve({ reviewers: [] })),
    'reviewers',
  );
  const decided = async (override: OverrideView) => {
    setDone(
      `Lote ${override.batchId}, linha ${override.row}: ${override.decision === 'approve' ? 'aprovado' : 'recusado'} por ${override.by}.`,
    );
    await reload();
  };
  return (
    <>
      <h1>Revisão{batchId ? ` do lote ${batchId}` : ''}</h1>
      <form className="filters" aria-label="Filtros da revisão" onSubmit={(event) => event.preventDefault()}>
        <fieldset>
          <legend>Linhas</legend>
          {HOLDERS.map((holder) => (
            <label className="check" key={holder.value}>
              <input
                type="radio"
                name="assigned"
                checked={assigned === holder.value}
                onChange={() => setAssigned(holder.value)}
              />{' '}
              {holder.label}
            </label>
          ))}
        </fieldset>
        <label htmlFor="review-queue">Fila (política)</label>
        <select id="review-queue" value={queue} onChange={(event) => setQueue(event.target.value)}>
          <option value="">Todas as filas</option>
          {value?.queues.map((name) => (
            <option key={name} value={name}>
              {name}
            </option>
          ))}
        </select>
        <label className="check">
          <input type="checkbox" checked={overdue} onChange={(event) => setOverdue(event.target.checked)} />{' '}
          Só atrasadas
        </label>
      </form>
      {problem && <p role="alert">{problem}</p>}
      {done && <p role="status">{done}</p>}
      {value && (
        <p>
          {value.total === 0
            ? 'Nenhuma linha aguarda decisão com esses filtros.'
            : `${formatCount(value.total)} ${value.total === 1 ? 'linha aguarda' : 'linhas aguardam'} decisão em ${formatCount(value.batches)} ${value.batches === 1 ? 'lote' : 'lotes'}.`}
        </p>
      )}
      {value?.items.map((item) => (
        <ReviewCard
          key={`${item.batchId}-${item.row}`}
          item={item}
          identity={identity}
          reviewers={reviewers.value?.reviewers ?? []}
          onChanged={reload}
          onDecided={decided}
        />
      ))}
    </>
  );
}
