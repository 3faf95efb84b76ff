import { afterAll, describe, expect, it } from 'vitest';
import { panicReason, ZenProcessPool } from '../../../src/adapters/decision/zen-process/zen-process-pool.ts';

/** A graph that answers `square = x * x`: past 2^64 the engine aborts its process (zen-engine 0.54.0, measured). */
const SQUARE = {
  nodes: [
    { id: 'in', type: 'inputNode', name: 'Entrada' },
    {
      id: 'calc',
      type: 'expressionNode',
      name: 'Cálculo',
      content: { expressions: [{ id: 's', key: 'square', value: 'x * x' }] },
    },
    { id: 'out', type: 'outputNode', name: 'Saída' },
  ],
  edges: [
    { id: 'e1', sourceId: 'in', targetId: 'calc' },
    { id: 'e2', sourceId: 'calc', targetId: 'out' },
  ],
};

describe('ZenProcessPool', () => {
  const pool = new ZenProcessPool({ processes: 2 });
  afterAll(() => pool.close());

  it('answers contexts asked together, each its own, over its processes', async () => {
    const key = pool.register(SQUARE);

    const answers = await Promise.all(
      Array.from({ length: 300 }, (_, x) => pool.evaluate(key, { x }, false)),
    );

    expect(answers.map((answer) => answer.ok && (answer.result as { square: number }).square)).toEqual(
      Array.from({ length: 300 }, (_, x) => x * x),
    );
    expect(pool.started).toBe(2);
  });

  it('answers `stopped` for the one context that aborts the engine, and every other one of its message', async () => {
    const key = pool.register(SQUARE);
    const xs = Array.from({ length: 200 }, (_, index) => (index === 77 ? 2 ** 32 : index));
    const before = pool.started;

    const answers = await Promise.all(xs.map((x) => pool.evaluate(key, { x }, false)));

    const stopped = answers.flatMap((answer, index) => (!answer.ok && answer.stopped ? [index] : []));
    expect(stopped).toEqual([77]);
    const failed = answers[77] as { error: string };
    expect(failed.error).toMatch(/^the engine stopped \(SIGABRT\): /);
    expect(failed.error).not.toMatch(/backtrace|\n/);
    expect(answers.filter((answer) => answer.ok)).toHaveLength(199);
    expect(pool.started).toBeGreaterThan(before);
  });

  it('registers a graph once, however often it is loaded', () => {
    expect(pool.register(SQUARE)).toBe(pool.register(structuredClone(SQUARE)));
  });
});

describe('an engine that cannot start', () => {
  it('answers every context with why, after a few tries, rather than starting a process per context', async () => {
    // Arrange: every process the pool starts fails before it loads the engine (as a missing binary would).
    const previous = process.env.NODE_OPTIONS;
    process.env.NODE_OPTIONS = '--require /nonexistent/credit-screen-broken-engine.cjs';
    const broken = new ZenProcessPool({ processes: 2 });
    try {
      const key = broken.register(SQUARE);

      // Act
      const answers = await Promise.all(
        Array.from({ length: 50 }, (_, x) => broken.evaluate(key, { x }, false)),
      );

      // Assert
      for (const answer of answers) {
        expect(answer.ok).toBe(false);
        expect((answer as { error: string }).error).toMatch(/could not start|engine stopped/);
      }
      expect(
        answers.some((answer) =>
          /^the engine could not start \(exit 1\): /.test((answer as { error: string }).error),
        ),
      ).toBe(true);
      expect(broken.started).toBeLessThanOrEqual(6);
    } finally {
      if (previous === undefined) delete process.env.NODE_OPTIONS;
      else process.env.NODE_OPTIONS = previous;
      broken.close();
    }
  });
});

describe('panicReason', () => {
  it('keeps the panic message and drops the backtrace', () => {
    const stderr =
      "\nthread '<unnamed>' panicked at /cargo/rust_decimal/src/ops.rs:232:18:\nMultiplication overflowed\nstack backtrace:\n   0: rust_begin_unwind\n";
    expect(panicReason(stderr, 'SIGABRT')).toBe('the engine stopped (SIGABRT): Multiplication overflowed');
    expect(panicReason('', 'exit 1')).toBe('the engine stopped (exit 1)');
  });

  it('starts its processes plainly, every context answered, when starting one on a core of its own fails', async () => {
    // Arrange: a pinning that cannot work (as `taskset` where the affinity may not be set): the process exits at once.
    const pool = new ZenProcessPool({ processes: 1, pin: () => ({ execPath: '/bin/false', execArgv: [] }) });
    try {
      const key = pool.register(SQUARE);

      // Act
      const answers = await Promise.all(
        Array.from({ length: 20 }, (_, x) => pool.evaluate(key, { x }, false)),
      );

      // Assert: one failed pinned start, one plain process that answered everything.
      expect(answers.every((answer) => answer.ok)).toBe(true);
      expect(pool.started).toBe(2);
    } finally {
      pool.close();
    }
  });
});
