// The last word of a stop: a graceful shutdown can wait forever on a log write to a pipe nobody reads
// (its supervisor gone), and so can process.exit, whose exit hooks flush the log synchronously. A worker
// thread has an event loop none of that holds, and ends the process once the deadline has passed.
import { Worker } from 'node:worker_threads';

const WATCHDOG = `
const { workerData } = require('node:worker_threads');
setTimeout(() => process.kill(workerData.pid, 'SIGKILL'), workerData.afterMs);
`;

/** Kills this process `afterMs` from now unless it has exited by then. */
export function armExitDeadline(afterMs: number): void {
  // Unreferenced: a shutdown that ends in time is not kept waiting for it.
  new Worker(WATCHDOG, { eval: true, workerData: { pid: process.pid, afterMs } }).unref();
}
