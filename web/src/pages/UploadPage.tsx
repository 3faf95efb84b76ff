import { type ChangeEvent, type DragEvent, type FormEvent, useState } from 'react';
import type { ListCheckView, UploadResult } from '../../../src/contract/console-schemas.ts';
import type { UploadTicketView } from '../../../src/contract/console-upload-schemas.ts';
import { ApiError, callApi, problemOf } from '../api.ts';
import { deployment } from '../deployment.ts';
import { formatCount, formatMoney } from '../format.ts';
import { navigate } from '../navigation.ts';
import { useApi } from '../useApi.ts';

/** A file's bytes as base64, a slice at a time (a list of megabytes would overflow one call's arguments). */
async function base64Of(file: File): Promise<string> {
  const bytes = new Uint8Array(await file.arrayBuffer());
  let binary = '';
  for (let start = 0; start < bytes.length; start += 0x8000)
    binary += String.fromCharCode(...bytes.subarray(start, start + 0x8000));
  return btoa(binary);
}

/** Uploading a list: drop or pick a CSV, see what it holds and what it would cost, then send it to be screened. */
export function UploadPage() {
  const [file, setFile] = useState<File | null>(null);
  const [bureau, setBureau] = useState<'a' | 'b'>('a');
  const [policy, setPolicy] = useState('');
  const [checked, setChecked] = useState<ListCheckView | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const { value: policies } = useApi(() => callApi<{ policies: string[] }>('policies'), 'policies');
  const choose = (chosen: File | undefined) => {
    setFile(chosen ?? null);
    setChecked(null);
    setProblem(null);
  };
  const body = async () => ({
    fileName: (file as File).name,
    content: await base64Of(file as File),
    bureau,
    policy: policy === '' ? null : policy,
  });
  const cloud = deployment() !== null;
  const [sent, setSent] = useState<string | null>(null);
  const check = async (event: FormEvent) => {
    event.preventDefault();
    if (cloud) return sendToS3();
    try {
      setChecked(await callApi<ListCheckView>('checkUpload', { body: await body() }));
      setProblem(null);
    } catch (error) {
      setChecked(null);
      setProblem(problemOf(error));
    }
  };
  // In AWS the list goes from this browser straight to S3, with a form the API signed for it alone.
  const sendToS3 = async () => {
    const chosen = file as File;
    try {
      const ticket = await callApi<UploadTicketView>('uploadTicket', {
        body: { fileName: chosen.name, bureau, policy: policy === '' ? null : policy, size: chosen.size },
      });
      const form = new FormData();
      for (const [name, value] of Object.entries(ticket.fields)) form.append(name, value);
      form.append('file', chosen);
      const posted = await fetch(ticket.url, { method: 'POST', body: form }).catch(() => null);
      if (posted === null || !posted.ok)
        throw new ApiError(posted?.status ?? 0, 'o S3 recusou a lista; tente de novo');
      setSent(`${chosen.name} enviada. O lote aparece em Lotes em instantes, com o orçamento.`);
      setProblem(null);
    } catch (error) {
      setProblem(problemOf(error));
    }
  };
  const send = async () => {
    try {
      const uploaded = await callApi<UploadResult>('upload', { body: await body() });
      navigate(`/lotes/${uploaded.batchId}`);
    } catch (error) {
      setProblem(problemOf(error));
    }
  };
  return (
    <>
      <h1>Enviar lista</h1>
      <form onSubmit={check} aria-label="Enviar uma lista de clientes">
        <DropZone file={file} onFile={choose} />
        <label htmlFor="upload-bureau">Birô</label>
        <select
          id="upload-bureau"
          value={bureau}
          onChange={(event) => setBureau(event.target.value as 'a' | 'b')}
        >
          <option value="a">A</option>
          <option value="b">B</option>
        </select>
        <label htmlFor="upload-policy">Política de crédito</label>
        <select id="upload-policy" value={policy} onChange={(event) => setPolicy(event.target.value)}>
          <option value="">A padrão da instalação (ou nenhuma)</option>
          {policies?.policies.map((name) => (
            <option key={name} value={name}>
              {name}
            </option>
          ))}
        </select>
        {cloud && (
          <p className="muted">
            A lista vai direto ao armazenamento da instalação; o lote mostra o orçamento e, acima do limite de
            aprovação, espera um gestor antes de qualquer consulta.
          </p>
        )}
        <button type="submit" disabled={file === null}>
          {cloud ? 'Enviar lista' : 'Verificar e orçar'}
        </button>
      </form>
      {problem && <p role="alert">{problem}</p>}
      {sent && <p role="status">{sent}</p>}
      {checked && <CheckResult checked={checked} onSend={send} />}
    </>
  );
}

function DropZone({ file, onFile }: { file: File | null; onFile: (file: File | undefined) => void }) {
  const [over, setOver] = useState(false);
  const drop = (event: DragEvent) => {
    event.preventDefault();
    setOver(false);
    onFile(event.dataTransfer.files[0]);
  };
  return (
    // biome-ignore lint/a11y/noStaticElementInteractions: dropping is a pointer shortcut; the file input inside is the control
    <div
      className={`drop${over ? ' over' : ''}`}
      onDragOver={(event) => {
        event.preventDefault();
        setOver(true);
      }}
      onDragLeave={() => setOver(false)}
      onDrop={drop}
    >
      <label htmlFor="upload-file">Arraste um CSV para cá, ou escolha o arquivo</label>
      <input
        id="upload-file"
        type="file"
        accept=".csv,.txt,text/csv"
        onChange={(event: ChangeEvent<HTMLInputElement>) => onFile(event.target.files?.[0])}
      />
      {file && <p className="muted">{file.name}</p>}
    </div>
  );
}

function CheckResult({ checked, onSend }: { checked: ListCheckView; onSend: () => Promise<void> }) {
  return (
    <section aria-labelledby="checked">
      <h2 id="checked">O que a lista tem</h2>
      <dl className="counts">
        <div>
          <dt>Linhas</dt>
          <dd>{formatCount(checked.rows)}</dd>
        </div>
        <div>
          <dt>Válidas</dt>
          <dd>{formatCount(checked.valid)}</dd>
        </div>
        <div>
          <dt>Inválidas</dt>
          <dd>{formatCount(checked.invalid)}</dd>
        </div>
        <div>
          <dt>Repetidas</dt>
          <dd>{formatCount(checked.duplicates)}</dd>
        </div>
        <div>
          <dt>Consultas a comprar</dt>
          <dd>{formatCount(checked.toBuy)}</dd>
        </div>
        <div>
          <dt>Custo estimado</dt>
          <dd>{formatMoney(checked.estimatedCost)}</dd>
        </div>
      </dl>
      <p className="muted">
        Coluna de documentos: {checked.documentColumns.join(', ')}; {checked.encoding}
        {checked.reusable
          ? `; ${formatCount(checked.reusable)} relatórios recentes reaproveitados sem custo`
          : ''}
        .
      </p>
      {checked.problems.length > 0 && (
        <>
          <h3>Linhas que não serão consultadas</h3>
          <ul>
            {checked.problems.map((row) => (
              <li key={row.row}>
                Linha {row.row} ({row.input || 'vazia'}): {row.reason}
              </li>
            ))}
          </ul>
        </>
      )}
      <button type="button" onClick={onSend}>
        Enviar e consultar ({formatMoney(checked.estimatedCost)})
      </button>
    </section>
  );
}
