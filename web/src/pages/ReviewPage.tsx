import { type FormEvent, useState } from 'react';
import type {
  OverrideView,
  ReviewPage as Page,
  ReviewItemView,
} from '../../../src/contract/console-schemas.ts';
import { ApiError, callApi } from '../api.ts';
import { formatCount, formatMoney, formatWhen } from '../format.ts';
import { useApi } from '../useApi.ts';

const PAGE_SIZE = 50;

/** The rows waiting for a person, oldest batch first, each with the policy's answer and a form to decide it. */
export function ReviewPage() {
  const [done, setDone] = useState<string | null>(null);
  const { value, problem, reload } = useApi(
    () => callApi<Page>('review', { query: { limit: PAGE_SIZE } }),
    'review',
  );
  const decided = async (override: OverrideView) => {
    setDone(
      `Lote ${override.batchId}, linha ${override.row}: ${override.decision === 'approve' ? 'aprovado' : 'recusado'} por ${override.by}.`,
    );
    await reload();
  };
  return (
    <>
      <h1>Revisão</h1>
      {problem && <p role="alert">{problem}</p>}
      {done && <p role="status">{done}</p>}
      {value && (
        <p>
          {value.total === 0
            ? 'Nenhuma linha aguarda decisão.'
            : `${formatCount(value.total)} ${value.total === 1 ? 'linha aguarda' : 'linhas aguardam'} decisão em ${formatCount(value.batches)} ${value.batches === 1 ? 'lote' : 'lotes'}.`}
        </p>
      )}
      {value?.items.map((item) => (
        <ReviewCard key={`${item.batchId}-${item.row}`} item={item} onDecided={decided} />
      ))}
    </>
  );
}

function ReviewCard({
  item,
  onDecided,
}: {
  item: ReviewItemView;
  onDecided: (override: OverrideView) => Promise<void>;
}) {
  const id = `${item.batchId}-${item.row}`;
  return (
    <article className="card" aria-labelledby={`title-${id}`}>
      <h2 id={`title-${id}`}>
        Linha {item.row} · {item.document}
      </h2>
      <p className="muted">
        Lote {item.batchId} · de {formatWhen(item.batchCreatedAt)}
      </p>
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
      <OverrideForm item={item} onDecided={onDecided} />
    </article>
  );
}

function OverrideForm({
  item,
  onDecided,
}: {
  item: ReviewItemView;
  onDecided: (override: OverrideView) => Promise<void>;
}) {
  const id = `${item.batchId}-${item.row}`;
  const [decision, setDecision] = useState<'approve' | 'decline'>('approve');
  const [limit, setLimit] = useState('');
  const [reason, setReason] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    try {
      const creditLimit =
        decision === 'approve' && limit.trim() !== '' ? Number(limit.replace(',', '.')) : null;
      const override = await callApi<OverrideView>('override', {
        params: { batchId: item.batchId, row: String(item.row) },
        body: { decision, creditLimit, reason },
      });
      await onDecided(override);
    } catch (error) {
      setProblem(error instanceof ApiError ? error.message : 'o console não respondeu; tente de novo');
    }
  };
  return (
    <form onSubmit={submit} aria-label={`Decisão da linha ${item.row}`}>
      <fieldset>
        <legend>Decisão</legend>
        <label className="check">
          <input
            type="radio"
            name={`decision-${id}`}
            checked={decision === 'approve'}
            onChange={() => setDecision('approve')}
          />{' '}
          Aprovar
        </label>
        <label className="check">
          <input
            type="radio"
            name={`decision-${id}`}
            checked={decision === 'decline'}
            onChange={() => setDecision('decline')}
          />{' '}
          Recusar
        </label>
      </fieldset>
      {decision === 'approve' && (
        <>
          <label htmlFor={`limit-${id}`}>Limite de crédito (R$, opcional)</label>
          <input
            id={`limit-${id}`}
            inputMode="decimal"
            value={limit}
            onChange={(event) => setLimit(event.target.value)}
          />
        </>
      )}
      <label htmlFor={`reason-${id}`}>Motivo</label>
      <textarea
        id={`reason-${id}`}
        value={reason}
        onChange={(event) => setReason(event.target.value)}
        required
        maxLength={500}
        rows={2}
      />
      <button type="submit">Registrar decisão</button>
      {problem && <p role="alert">{problem}</p>}
    </form>
  );
}
