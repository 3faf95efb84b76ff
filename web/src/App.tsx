import { useEffect, useState } from 'react';
import type { ConsoleIdentity } from '../../src/contract/console-roles.ts';
import { deployment } from './deployment.ts';
import { roleLabel } from './format.ts';
import { inside, navigate, usePath } from './navigation.ts';
import { BatchesPage } from './pages/BatchesPage.tsx';
import { BatchPage } from './pages/BatchPage.tsx';
import { ReviewPage } from './pages/ReviewPage.tsx';
import { SubjectsPage } from './pages/SubjectsPage.tsx';
import { UploadPage } from './pages/UploadPage.tsx';
import { UsersPage } from './pages/UsersPage.tsx';
import { beginCloudSignIn, endSession, startSession } from './session.ts';

type Session =
  | { readonly state: 'starting' }
  | { readonly state: 'signed-out'; readonly problem: string | null }
  | { readonly state: 'signed-in'; readonly identity: ConsoleIdentity };

/** The console: sign-in from the link, then the page the path names. */
export function App() {
  const [session, setSession] = useState<Session>({ state: 'starting' });
  const path = usePath();
  useEffect(() => {
    startSession().then(
      ({ identity, problem }) =>
        setSession(identity === null ? { state: 'signed-out', problem } : { state: 'signed-in', identity }),
      () => setSession({ state: 'signed-out', problem: 'o console não respondeu; tente de novo' }),
    );
  }, []);
  if (session.state === 'starting') return <main className="page" aria-busy="true" />;
  if (session.state === 'signed-out') return <SignedOut problem={session.problem} />;
  const { identity } = session;
  const readsBatches = identity.roles.some((role) => role === 'analyst' || role === 'manager');
  // The local console's own users page: in AWS the user pool keeps the users.
  const local = deployment() === null;
  const signOut = async () => {
    await endSession();
    setSession({ state: 'signed-out', problem: null });
    navigate('/');
  };
  return (
    <>
      <header className="top">
        <a className="brand" href="/" onClick={inside('/')}>
          credit-screen
        </a>
        <nav aria-label="Seções">
          {readsBatches && (
            <a
              href="/"
              onClick={inside('/')}
              aria-current={path === '/' || path.startsWith('/lotes') ? 'page' : undefined}
            >
              Lotes
            </a>
          )}
          {readsBatches && (
            <a
              href="/enviar"
              onClick={inside('/enviar')}
              aria-current={path === '/enviar' ? 'page' : undefined}
            >
              Enviar lista
            </a>
          )}
          {readsBatches && (
            <a
              href="/revisao"
              onClick={inside('/revisao')}
              aria-current={path === '/revisao' ? 'page' : undefined}
            >
              Revisão
            </a>
          )}
          {identity.roles.includes('dpo') && (
            <a
              href="/titulares"
              onClick={inside('/titulares')}
              aria-current={path === '/titulares' ? 'page' : undefined}
            >
              Titulares
            </a>
          )}
          {identity.roles.includes('admin') && local && (
            <a
              href="/usuarios"
              onClick={inside('/usuarios')}
              aria-current={path === '/usuarios' ? 'page' : undefined}
            >
              Usuários
            </a>
          )}
        </nav>
        <div className="who">
          <span>
            {identity.name} <span className="roles">({identity.roles.map(roleLabel).join(', ')})</span>
          </span>
          <button type="button" className="secondary" onClick={signOut}>
            Sair
          </button>
        </div>
      </header>
      <main className="page">{pageFor(path, identity)}</main>
    </>
  );
}

function pageFor(path: string, identity: ConsoleIdentity) {
  const batch = /^\/lotes\/([A-Za-z0-9_-]+)$/.exec(path);
  if (batch?.[1]) return <BatchPage batchId={batch[1]} identity={identity} />;
  if (path === '/usuarios') return <UsersPage />;
  if (path === '/revisao') return <ReviewPage identity={identity} />;
  if (path === '/titulares') return <SubjectsPage />;
  if (path === '/enviar') return <UploadPage />;
  // A DPO's first page is theirs; everyone else's is the batches.
  if (
    !identity.roles.some((role) => role === 'analyst' || role === 'manager') &&
    identity.roles.includes('dpo')
  )
    return <SubjectsPage />;
  return <BatchesPage identity={identity} />;
}

function SignedOut({ problem }: { problem: string | null }) {
  if (deployment() !== null)
    return (
      <main className="page narrow">
        <h1>credit-screen</h1>
        {problem && <p role="alert">{problem}</p>}
        <p>Entre com a conta que o administrador do console criou para você.</p>
        <button type="button" onClick={() => void beginCloudSignIn()}>
          Entrar
        </button>
      </main>
    );
  return (
    <main className="page narrow">
      <h1>credit-screen</h1>
      {problem && <p role="alert">{problem}</p>}
      <p>
        Para entrar, abra o link de acesso: quem iniciou o console o recebe do comando{' '}
        <code>npx credit-screen console</code>; um administrador cria o seu na página Usuários.
      </p>
    </main>
  );
}
