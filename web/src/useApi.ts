import { useCallback, useEffect, useRef, useState } from 'react';
import { ApiError } from './api.ts';

/** How often a page that shows work in progress reads it again. */
const REFRESH_MS = 5000;

/**
 * Reads `load` now and again whenever `key` changes (what `load` reads, said as a string); while `live(value)`
 * holds, every few seconds (a batch still running shows its progress without a reload). `reload` reads it at once.
 */
export function useApi<T>(load: () => Promise<T>, key: string, live: (value: T) => boolean = () => false) {
  const [value, setValue] = useState<T | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  // The latest `load`: a page re-rendered with the same key reads what its newest render asks for.
  const latest = useRef(load);
  latest.current = load;
  const reload = useCallback(async () => {
    try {
      setValue(await latest.current());
      setProblem(null);
    } catch (error) {
      setProblem(error instanceof ApiError ? error.message : 'o console não respondeu; tente de novo');
    }
  }, []);
  const [readKey, setReadKey] = useState<string | null>(null);
  if (readKey !== key) setReadKey(key);
  useEffect(() => {
    if (readKey !== null) void reload();
  }, [readKey, reload]);
  useEffect(() => {
    if (value === null || !live(value)) return;
    const timer = window.setTimeout(() => void reload(), REFRESH_MS);
    return () => window.clearTimeout(timer);
  }, [value, live, reload]);
  return { value, problem, reload };
}
