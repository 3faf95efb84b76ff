import { type FormEvent, useState } from 'react';
import { CONSOLE_ROUTES } from '../../../src/contract/console-routes.ts';
import type { SubjectErasureResult, SubjectSummary } from '../../../src/contract/console-schemas.ts';
import { ApiError, callApi, problemOf } from '../api.ts';
import { apiAccess } from '../deployment.ts';
import { formatCount, formatWhen } from '../format.ts';

const KIND_LABELS: Readonly<Record<SubjectSummary['audit'][number]['kind'], string>> = {
  bureau_request: 'Consulta ao birô',
  decision: 'Decisão da política',
  override: 'Decisão de uma pessoa',
  erasure: 'Eliminação',
  access: 'Acesso aos dados',
};

/** Saves what is held about a document as a file: the document goes in the request's body, never in an address. */
async function downloadExport(document: string): Promise<void> {
  // As every call goes (in AWS: to the API's address, with the ID token), but answered with a file, not JSON.
  const access = apiAccess();
  const response = await fetch(`${access.base}${CONSOLE_ROUTES.subjectExport.path}`, {
    method: 'POST',
    credentials: access.base === '' ? 'same-origin' : 'omit',
    headers: { ...access.headers, 'Content-Type': 'application/json' },
    body: JSON.stringify({ document }),
  });
  if (!response.ok) {
    // A gateway's own refusal (an HTML page) has no line of ours to show.
    const answer = (await response.json().catch(() => ({}))) as { error?: string };
    throw new ApiError(response.status, answer.error ?? `erro ${response.status}`);
  }
  const link = window.document.createElement('a');
  link.href = URL.createObjectURL(await response.blob());
  link.download = 'titular.json';
  link.click();
  URL.revokeObjectURL(link.href);
}

/** The DPO's page: what is held about a document and its audit trail, its export, and its erasure. */
export function SubjectsPage() {
  const [document, setDocument] = useState('');
  // The document looked up, with what is held about it: export and erasure act on that one, whatever is typed after.
  const [found, setFound] = useState<{ document: string; summary: SubjectSummary } | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const lookUp = async (event: FormEvent) => {
    event.preventDefault();
    try {
      setFound({ document, summary: await callApi<SubjectSummary>('subjectLookup', { body: { document } }) });
      setProblem(null);
    } catch (error) {
      setFound(null);
      setProblem(problemOf(error));
    }
  };
  return (
    <>
      <h1>Titulares</h1>
      <form onSubmit={lookUp} aria-label="Consultar um titular">
        <label htmlFor="subject-document">CPF ou CNPJ do titular</label>
        <input
          id="subject-document"
          autoComplete="off"
          value={document}
          onChange={(event) => {
            setDocument(event.target.value);
            setFound(null);
          }}
          required
          maxLength={40}
        />
        <button type="submit">Consultar</button>
      </form>
      {problem && <p role="alert">{problem}</p>}
      {found && <Held summary={found.summary} document={found.document} />}
    </>
  );
}

function Held({ summary, document }: { summary: SubjectSummary; document: string }) {
  const [problem, setProblem] = useState<string | null>(null);
  return (
    <section aria-labelledby="held">
      <h2 id="held">Dados de {summary.document}</h2>
      <p>
        {formatCount(summary.batches.length)} lotes, {formatCount(summary.reports)} relatórios guardados,{' '}
        {formatCount(summary.audit.length)} registros de auditoria.
      </p>
      <button
        type="button"
        className="secondary"
        onClick={() => downloadExport(document).catch((error: unknown) => setProblem(problemOf(error)))}
      >
        Exportar tudo (JSON)
      </button>
      {problem && <p role="alert">{problem}</p>}
      {summary.audit.length > 0 && (
        <div className="table-scroll">
          <table>
            <caption>Trilha de auditoria</caption>
            <thead>
              <tr>
                <th scope="col">Quando</th>
                <th scope="col">O quê</th>
                <th scope="col">Lote e linha</th>
                <th scope="col">Detalhe</th>
              </tr>
            </thead>
            <tbody>
              {summary.audit.map((entry) => (
                <tr key={`${entry.at}-${entry.kind}-${entry.batchId}-${entry.row}`}>
                  <td>{formatWhen(entry.at)}</td>
                  <td>{KIND_LABELS[entry.kind]}</td>
                  <td>
                    {entry.batchId}, linha {entry.row}
                  </td>
                  <td>{entry.detail}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <Erasure document={document} />
    </section>
  );
}

function Erasure({ document }: { document: string }) {
  const [confirmation, setConfirmation] = useState('');
  const [reason, setReason] = useState('');
  const [outcome, setOutcome] = useState<string | null>(null);
  const erase = async (event: FormEvent) => {
    event.preventDefault();
    try {
      const erased = await callApi<SubjectErasureResult>('subjectErase', {
        body: { document, confirmation, reason },
      });
      setOutcome(
        `Dados pessoais eliminados por ${erased.by}: ${formatCount(erased.rows)} linhas em ${formatCount(erased.batches)} lotes, ${formatCount(erased.storedReports)} relatórios; ${formatCount(erased.auditEntriesKept)} registros de auditoria mantidos.`,
      );
    } catch (error) {
      setOutcome(problemOf(error));
    }
  };
  return (
    <form onSubmit={erase} aria-label="Eliminar os dados pessoais do titular">
      <h3>Eliminar os dados pessoais (LGPD, art. 18, VI)</h3>
      <label htmlFor="erase-reason">Motivo (referência do pedido)</label>
      <input
        id="erase-reason"
        value={reason}
        onChange={(event) => setReason(event.target.value)}
        required
        maxLength={500}
      />
      <label htmlFor="erase-confirmation">Digite o documento de novo para confirmar</label>
      <input
        id="erase-confirmation"
        autoComplete="off"
        value={confirmation}
        onChange={(event) => setConfirmation(event.target.value)}
        required
        maxLength={40}
      />
      <button type="submit" className="danger">
        Eliminar dados pessoais
      </button>
      {outcome && <p role="status">{outcome}</p>}
    </form>
  );
}
