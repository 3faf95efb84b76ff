import { type FormEvent, useState } from 'react';
import { CONSOLE_ROLES, type ConsoleRole } from '../../../src/contract/console-roles.ts';
import type { CreatedUser, UserView } from '../../../src/contract/console-schemas.ts';
import { ApiError, callApi } from '../api.ts';
import { formatWhen, roleLabel } from '../format.ts';
import { useApi } from '../useApi.ts';

/** The local console's users: who may do what, and a form that creates one with their sign-in link. */
export function UsersPage() {
  const { value, problem, reload } = useApi(() => callApi<{ users: UserView[] }>('users'), 'users');
  return (
    <>
      <h1>Usuários</h1>
      {problem && <p role="alert">{problem}</p>}
      {value && (
        <div className="table-scroll">
          <table>
            <caption className="visually-hidden">Usuários do console</caption>
            <thead>
              <tr>
                <th scope="col">Nome</th>
                <th scope="col">Papéis</th>
                <th scope="col">Criado</th>
              </tr>
            </thead>
            <tbody>
              {value.users.map((user) => (
                <tr key={user.subject}>
                  <th scope="row">{user.name}</th>
                  <td>{user.roles.map(roleLabel).join(', ')}</td>
                  <td>
                    {formatWhen(user.createdAt)} <span className="muted">por {user.createdBy}</span>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <NewUserForm onCreated={reload} />
    </>
  );
}

function NewUserForm({ onCreated }: { onCreated: () => Promise<void> }) {
  const [name, setName] = useState('');
  const [roles, setRoles] = useState<ConsoleRole[]>(['analyst']);
  const [created, setCreated] = useState<{ name: string; link: string } | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    try {
      const answer = await callApi<CreatedUser>('createUser', { body: { name, roles } });
      // The token goes in the fragment: a browser never sends it to a server, nor keeps it in a log.
      setCreated({ name: answer.user.name, link: `${window.location.origin}/#token=${answer.signInToken}` });
      setProblem(null);
      setName('');
      setRoles(['analyst']);
      await onCreated();
    } catch (error) {
      setProblem(error instanceof ApiError ? error.message : 'o console não respondeu; tente de novo');
    }
  };
  const toggle = (role: ConsoleRole) =>
    setRoles(roles.includes(role) ? roles.filter((held) => held !== role) : [...roles, role]);
  return (
    <section aria-labelledby="new-user">
      <h2 id="new-user">Novo usuário</h2>
      <form onSubmit={submit}>
        <label htmlFor="user-name">Nome</label>
        <input
          id="user-name"
          value={name}
          onChange={(event) => setName(event.target.value)}
          required
          maxLength={80}
        />
        <fieldset>
          <legend>Papéis</legend>
          {CONSOLE_ROLES.map((role) => (
            <label key={role} className="check">
              <input type="checkbox" checked={roles.includes(role)} onChange={() => toggle(role)} />{' '}
              {roleLabel(role)}
            </label>
          ))}
        </fieldset>
        <button type="submit">Criar usuário</button>
      </form>
      {problem && <p role="alert">{problem}</p>}
      {created && (
        <div role="status" className="created">
          <p>
            Envie a {created.name} este link de acesso (vale uma vez, por 24 horas, enquanto este console
            estiver aberto):
          </p>
          <input readOnly aria-label={`Link de acesso de ${created.name}`} value={created.link} />
        </div>
      )}
    </section>
  );
}
