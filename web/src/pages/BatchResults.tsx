import { useState } from 'react';
import type {
  BatchView,
  DownloadLink,
  ExportResult,
  ResultFile,
} from '../../../src/contract/console-schemas.ts';
import { callApi, problemOf } from '../api.ts';
import { formatCount } from '../format.ts';
import { inside } from '../navigation.ts';

const FILES: readonly { readonly file: ResultFile; readonly label: string }[] = [
  { file: 'summary', label: 'Resumo (CSV)' },
  { file: 'reports', label: 'Relatórios do birô (JSONL)' },
  { file: 'changes', label: 'Mudanças (CSV)' },
];

/** A finished batch's results: its report page, its files through short-lived links, and the final decisions' export. */
export function BatchResults({ batch }: { batch: BatchView }) {
  const [report, setReport] = useState<string | null>(null);
  const [message, setMessage] = useState<string | null>(null);
  const params = { batchId: batch.batchId };
  const link = (file: ResultFile) => callApi<DownloadLink>('download', { params, body: { file } });
  const download = async (file: ResultFile) => {
    try {
      const { url } = await link(file);
      // The link downloads the file itself (an attachment), and works once: nothing of it stays in the page.
      window.location.assign(url);
    } catch (error) {
      setMessage(problemOf(error));
    }
  };
  const showReport = async () => {
    try {
      const { url } = await link('report');
      // Shown here when the link is the console's own (locally); a bucket's link (in AWS) downloads the page.
      if (new URL(url, window.location.href).origin === window.location.origin) setReport(url);
      else window.location.assign(url);
    } catch (error) {
      setMessage(problemOf(error));
    }
  };
  const exportDecisions = async () => {
    try {
      const done = await callApi<ExportResult>('exportDecisions', { params });
      setMessage(
        `Decisões finais gravadas no resumo: ${formatCount(done.overridden)} por pessoas, ${formatCount(done.stillInReview)} ainda em revisão.`,
      );
    } catch (error) {
      setMessage(problemOf(error));
    }
  };
  const reviewPath = `/revisao?lote=${encodeURIComponent(batch.batchId)}`;
  return (
    <section aria-labelledby="results">
      <h2 id="results">Resultados</h2>
      <div className="actions">
        {FILES.filter(({ file }) => file !== 'changes' || batch.portfolio !== null).map(({ file, label }) => (
          <button key={file} type="button" className="secondary" onClick={() => download(file)}>
            Baixar {label}
          </button>
        ))}
        {batch.policy && (
          <a className="button secondary" href={reviewPath} onClick={inside(reviewPath)}>
            Revisar linhas deste lote
          </a>
        )}
        {batch.policy && (
          <button type="button" className="secondary" onClick={exportDecisions}>
            Gravar decisões finais no resumo
          </button>
        )}
        {report === null && (
          <button type="button" onClick={showReport}>
            Ver relatório
          </button>
        )}
      </div>
      {message && <p role="status">{message}</p>}
      {report && (
        // Sandboxed and scriptless: the page is the batch's own, shown here as it is written to S3.
        <iframe className="report" title="Relatório do lote" src={report} sandbox="" />
      )}
    </section>
  );
}
