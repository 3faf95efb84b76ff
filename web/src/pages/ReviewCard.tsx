import { useState } from 'react';
import type { CaseState } from '../../../src/contract/console-case-schemas.ts';
import type { ConsoleIdentity } from '../../../src/contract/console-roles.ts';
import type { OverrideView, ReviewItemView } from '../../../src/contract/console-schemas.ts';
import { ApiError, callApi } from '../api.ts';
import { formatMoney, formatWhen } from '../format.ts';
import { OverrideForm } from './OverrideForm.tsx';
import { ReviewCaseDetails } from './ReviewCaseDetails.tsx';

interface Person {
  readonly subject: string;
  readonly name: string;
}

/** One row waiting for a person: the policy's answer, its queue and due date, who holds it, and the decision. */
export function ReviewCard({
  item,
  identity,
  reviewers,
  onChanged,
  onDecided,
}: {
  item: ReviewItemView;
  identity: ConsoleIdentity;
  reviewers: readonly Person[];
  onChanged: () => Promise<void>;
  onDecided: (override: OverrideView) => Promise<void>;
}) {
  const id = `${item.batchId}-${item.row}`;
  const late = item.dueAt < new Date().toISOString();
  const [open, setOpen] = useState(false);
  return (
    <article className="card" aria-labelledby={`title-${id}`}>
      <h2 id={`title-${id}`}>
        Linha {item.row} · {item.document}
      </h2>
      <p className="muted">
        Lote {item.batchId} · fila {item.queue} · prazo {formatWhen(item.dueAt)}
        {late && <strong className="late"> · atrasada</strong>}
      </p>
      <Holder item={item} identity={identity} reviewers={reviewers} onChanged={onChanged} />
      <dl className="counts">
        <div>
          <dt>Faixa de risco</dt>
          <dd>{item.riskBand ?? '—'}</dd>
        </div>
        <div>
          <dt>Limite sugerido</dt>
          <dd>{item.creditLimit === null ? '—' : formatMoney(item.creditLimit)}</dd>
        </div>
        {Object.entries(item.customer).map(([header, value]) => (
          <div key={header}>
            <dt>{header}</dt>
            <dd>{value || '—'}</dd>
          </div>
        ))}
      </dl>
      <h3>Por que a política pediu revisão</h3>
      <ul>
        {item.reasons.map((reason) => (
          <li key={reason.code}>
            {reason.text} <span className="muted">({reason.code})</span>
          </li>
        ))}
      </ul>
      <details onToggle={(event) => setOpen((event.target as HTMLDetailsElement).open)}>
        <summary>
          Dados, regras e comentários
          {item.comments > 0
            ? ` (${item.comments} ${item.comments === 1 ? 'comentário' : 'comentários'})`
            : ''}
        </summary>
        {open && <ReviewCaseDetails batchId={item.batchId} row={item.row} onChanged={onChanged} />}
      </details>
      <OverrideForm item={item} onDecided={onDecided} />
    </article>
  );
}

/** Who holds the row, and what the person may do about it: take it, give it back, or (a manager) give it. */
function Holder({
  item,
  identity,
  reviewers,
  onChanged,
}: {
  item: ReviewItemView;
  identity: ConsoleIdentity;
  reviewers: readonly Person[];
  onChanged: () => Promise<void>;
}) {
  const [problem, setProblem] = useState<string | null>(null);
  const mine = item.assignee?.subject === identity.subject;
  const isManager = identity.roles.includes('manager');
  const assign = async (to: 'me' | null | { subject: string }) => {
    try {
      await callApi<CaseState>('assign', {
        params: { batchId: item.batchId, row: String(item.row) },
        body: { to, expected: item.assignee?.subject ?? null },
      });
      setProblem(null);
      await onChanged();
    } catch (error) {
      setProblem(error instanceof ApiError ? error.message : 'o console não respondeu; tente de novo');
    }
  };
  const others = reviewers.filter((person) => person.subject !== item.assignee?.subject);
  return (
    <div className="holder">
      <p>{item.assignee === null ? 'Livre' : mine ? 'Com você' : `Com ${item.assignee.name}`}</p>
      {item.assignee === null && (
        <button type="button" onClick={() => void assign('me')}>
          Assumir
        </button>
      )}
      {item.assignee !== null && (mine || isManager) && (
        <button type="button" className="secondary" onClick={() => void assign(null)}>
          {mine ? 'Devolver' : 'Liberar'}
        </button>
      )}
      {isManager && others.length > 0 && (
        <label>
          Entregar a{' '}
          <select
            value=""
            onChange={(event) => event.target.value && void assign({ subject: event.target.value })}
          >
            <option value="">escolha…</option>
            {others.map((person) => (
              <option key={person.subject} value={person.subject}>
                {person.name}
              </option>
            ))}
          </select>
        </label>
      )}
      {problem && <p role="alert">{problem}</p>}
    </div>
  );
}
