import { type FormEvent, useState } from 'react';
import type { OverrideView, ReviewItemView } from '../../../src/contract/console-schemas.ts';
import { ApiError, callApi } from '../api.ts';

/** The person's final decision on a row, with its limit and why; recorded beside the policy's. */
export function OverrideForm({
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
