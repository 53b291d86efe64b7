// A write started from a row of a table (switch, cancel, delete): while it runs the rows' controls wait
// (busy); its success shows as a status, its problem above the table; the list is read again either way.
import { useState } from 'react';
import { type ApiProblem, problemOf } from '../api/api-problem';

export function useRowWrite(refresh: () => Promise<unknown>) {
  const [busy, setBusy] = useState(false);
  const [status, setStatus] = useState<string>();
  const [problem, setProblem] = useState<ApiProblem>();
  const write = async (done: string, call: () => Promise<unknown>) => {
    setBusy(true);
    setProblem(undefined);
    setStatus(undefined);
    try {
      await call();
      setStatus(done);
    } catch (error) {
      setProblem(problemOf(error));
    } finally {
      setBusy(false);
      await refresh();
    }
  };
  return { busy, status, setStatus, problem, write };
}
