import { type FormEvent, useState } from 'react';
import type { CaseState, ReviewCaseView } from '../../../src/contract/console-case-schemas.ts';
import { ApiError, callApi } from '../api.ts';
import { formatCount, formatMoney, formatWhen } from '../format.ts';
import { useApi } from '../useApi.ts';

const OVERRIDE_LABELS = { approve: 'aprovou', decline: 'recusou' } as const;

/** What a person needs to decide a row: the figures the policy read, the rules that fired, comments, overrides. */
export function ReviewCaseDetails({
  batchId,
  row,
  onChanged,
}: {
  batchId: string;
  row: number;
  onChanged: () => Promise<void>;
}) {
  const params = { batchId, row: String(row) };
  const { value, problem, reload } = useApi(
    () => callApi<ReviewCaseView>('reviewCase', { params }),
    `case ${batchId} ${row}`,
  );
  if (problem) return <p role="alert">{problem}</p>;
  if (value === null) return <p aria-busy="true">Carregando…</p>;
  const figures = value.figures;
  return (
    <div className="case">
      {value.policy && (
        <p className="muted">
          Política {value.policy.name} · versão {value.policy.sha256.slice(0, 12)}
        </p>
      )}
      {figures && (
        <dl className="counts">
          <div>
            <dt>Score</dt>
            <dd>{figures.score ?? '—'}</dd>
          </div>
          <div>
            <dt>Protestos</dt>
            <dd>
              {formatCount(figures.protestsCount)}
              {figures.protestsCents ? ` · ${formatMoney(figures.protestsCents / 100)}` : ''}
            </dd>
          </div>
          <div>
            <dt>Dívidas pendentes</dt>
            <dd>
              {formatCount(figures.pendingDebtsCount)}
              {figures.pendingDebtsCents ? ` · ${formatMoney(figures.pendingDebtsCents / 100)}` : ''}
            </dd>
          </div>
          <div>
            <dt>Cheques sem fundo</dt>
            <dd>{formatCount(figures.bouncedChequesCount)}</dd>
          </div>
          <div>
            <dt>Consultado em</dt>
            <dd>{formatWhen(figures.screenedAt)}</dd>
          </div>
        </dl>
      )}
      <h3>Regras que dispararam</h3>
      {value.rulesFired === null ? (
        <p className="muted">Decidida ao fim do lote: as regras estão no arquivo de relatórios.</p>
      ) : (
        <ol>
          {value.rulesFired.map((rule) => (
            <li key={`${rule.node}-${rule.rule}`}>
              {rule.node}
              {rule.row === null ? '' : `, linha ${rule.row}`}
              {rule.description ? ` — ${rule.description}` : ''}
            </li>
          ))}
        </ol>
      )}
      {value.overrides.length > 0 && (
        <>
          <h3>Decisões de pessoas</h3>
          <ul>
            {value.overrides.map((override) => (
              <li key={override.at}>
                {override.by} {OVERRIDE_LABELS[override.decision]} em {formatWhen(override.at)}:{' '}
                {override.reason}
              </li>
            ))}
          </ul>
        </>
      )}
      <Comments value={value} params={params} onChanged={async () => Promise.all([reload(), onChanged()])} />
    </div>
  );
}

function Comments({
  value,
  params,
  onChanged,
}: {
  value: ReviewCaseView;
  params: Readonly<Record<string, string>>;
  onChanged: () => Promise<unknown>;
}) {
  const [text, setText] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const id = `comment-${params.batchId}-${params.row}`;
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    try {
      await callApi<CaseState>('comment', { params, body: { text } });
      setText('');
      setProblem(null);
      await onChanged();
    } catch (error) {
      setProblem(error instanceof ApiError ? error.message : 'o console não respondeu; tente de novo');
    }
  };
  return (
    <>
      <h3>Comentários</h3>
      {value.comments.length === 0 && <p className="muted">Nenhum comentário ainda.</p>}
      <ul className="comments">
        {value.comments.map((comment) => (
          <li key={`${comment.at}-${comment.by.subject}`}>
            <p className="muted">
              {comment.by.name} · {formatWhen(comment.at)}
            </p>
            <p className="comment-text">{comment.text}</p>
          </li>
        ))}
      </ul>
      <form onSubmit={submit} aria-label="Novo comentário">
        <label htmlFor={id}>Comentário</label>
        <textarea
          id={id}
          value={text}
          onChange={(event) => setText(event.target.value)}
          required
          maxLength={1000}
          rows={2}
        />
        <button type="submit" className="secondary">
          Comentar
        </button>
        {problem && <p role="alert">{problem}</p>}
      </form>
    </>
  );
}
