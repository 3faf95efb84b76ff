/**
 * The process that runs ZEN for a credit policy: started by zen-process-pool.ts, spoken to over Node's IPC channel.
 * It is plain JavaScript with no import but the engine, so that the same file runs from the source tree and beside a
 * Lambda bundle without a build step or a TypeScript loader. Why a process of its own: zen-engine 0.54.0 aborts the
 * whole process (SIGABRT) on numbers it cannot hold, an overflowing product or quotient among them; here that ends
 * this process only, and the pool answers for the row that did it.
 *
 * Messages in: `{ type: 'load', key, graph, fields }` (a decision graph to keep under a key; `fields`, when given,
 * names the values of each context, sent as a list: half the bytes of an object to write and read) and
 * `{ type: 'evaluate', id, key, contexts, trace }`. Message out: `{ id, answers }`, one answer per context in order,
 * `{ ok: true, result, trace? }` or `{ ok: false, error }` (ZEN's error message, as the engine wrote it).
 */
import { ZenEngine } from '@gorules/zen-engine';

const engine = new ZenEngine();
/** @type {Map<string, { decision: import('@gorules/zen-engine').ZenDecision, fields: string[] | null }>} */
const decisions = new Map();

/** A context as ZEN takes it: an object, rebuilt from its list of values when the graph names its fields. */
function contextOf(values, fields) {
  if (fields === null) return values;
  const context = {};
  for (let index = 0; index < fields.length; index++) context[fields[index]] = values[index];
  return context;
}

/** One context's answer; a ZEN error (not an abort) is an answer too. */
async function answer(decision, context, trace) {
  try {
    const response = await decision.evaluate(context, trace ? { trace: true } : undefined);
    return trace
      ? { ok: true, result: response.result, trace: response.trace }
      : { ok: true, result: response.result };
  } catch (error) {
    return { ok: false, error: error instanceof Error ? error.message : String(error) };
  }
}

process.on('message', async (message) => {
  if (message.type === 'load') {
    decisions.set(message.key, {
      decision: engine.createDecision(message.graph),
      fields: message.fields ?? null,
    });
    return;
  }
  const loaded = decisions.get(message.key);
  if (loaded === undefined) {
    const error = `no policy is loaded under ${message.key}`;
    process.send({ id: message.id, answers: message.contexts.map(() => ({ ok: false, error })) });
    return;
  }
  const { decision, fields } = loaded;
  const answers = await Promise.all(
    message.contexts.map((values) => answer(decision, contextOf(values, fields), message.trace)),
  );
  process.send({ id: message.id, answers });
});

// The pool that started this process is gone (it exited, or closed the channel): nothing is left to answer.
process.on('disconnect', () => process.exit(0));
