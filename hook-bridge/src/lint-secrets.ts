/**
 * Lint's secret scan on a second thread: a worker reads and scans the notes while the main
 * thread reads and parses them, which on a large vault takes about as long.
 */

import { readFileSync } from "node:fs";
import { isMainThread, MessageChannel, receiveMessageOnPort, Worker, workerData, type MessagePort } from "node:worker_threads";
import type { SecretScanner } from "../../src/core/lint/lint";
import { scanForSecrets, type SecretScan } from "../../src/core/lint/secrets";

const JOB = "vault-memory lint secrets";

// Below this many notes the scan costs less than starting a thread (about 30 ms).
const MIN_NOTES = 1000;

// The main thread gives up on a worker that scans no note for this long, and the rule scans
// what it did not: the worker only saves time, it is never needed for an answer.
const STALL_MS = 5000;

interface Job {
  job: typeof JOB;
  abs: string[];
  /** [0]: 1 once the answer is posted; [1]: notes scanned so far. */
  progress: Int32Array;
  port: MessagePort;
}

/** Secrets found, by index into the job's notes, and how many notes were scanned. */
interface Answer {
  scanned: number;
  found: [number, SecretScan][];
}

export const scanSecretsInWorker: SecretScanner = (files) => {
  const bundle = typeof __filename === "string" && __filename.endsWith(".cjs") ? __filename : "";
  // Run from source (the tests), there is no bundle for a worker to load.
  if (!bundle || files.length < MIN_NOTES) return () => new Map();
  const progress = new Int32Array(new SharedArrayBuffer(8));
  const { port1, port2 } = new MessageChannel();
  let worker: Worker;
  try {
    const job: Job = { job: JOB, abs: files.map((f) => f.abs), progress, port: port2 };
    // stdout and stderr of its own: piping them to ours would make Node open our stdout as a
    // stream, which turns a pipe non-blocking, and the report's one writeSync would be cut short.
    worker = new Worker(bundle, { workerData: job, transferList: [port2], stdout: true, stderr: true });
  } catch {
    return () => new Map();
  }
  worker.unref();
  return () => {
    let seen = -1;
    // The main thread has nothing else to do, so it waits here rather than in its event loop.
    while (Atomics.wait(progress, 0, 0, STALL_MS) === "timed-out" && Atomics.load(progress, 1) !== seen) seen = Atomics.load(progress, 1);
    const answer = receiveMessageOnPort(port1)?.message as Answer | undefined;
    port1.close();
    void worker.terminate();
    const scans = new Map<string, SecretScan>();
    if (!answer) return scans;
    const none: SecretScan = { kinds: [], line: 0 };
    for (let i = 0; i < answer.scanned; i++) scans.set(files[i].path, none);
    for (const [i, scan] of answer.found) scans.set(files[i].path, scan);
    return scans;
  };
};

function runJob(job: Job): void {
  const answer: Answer = { scanned: 0, found: [] };
  try {
    for (const abs of job.abs) {
      const scan = scanForSecrets(readFileSync(abs, "utf8"));
      if (scan.kinds.length > 0) answer.found.push([answer.scanned, scan]);
      Atomics.store(job.progress, 1, ++answer.scanned);
    }
  } catch {
    // A note that cannot be read: the main thread reads it too, and says what is wrong.
  } finally {
    job.port.postMessage(answer);
    job.port.close();
    Atomics.store(job.progress, 0, 1);
    Atomics.notify(job.progress, 0);
  }
}

// The worker loads this same bundle; in it, this module runs the job instead of waiting for a command.
if (!isMainThread && (workerData as Partial<Job> | null)?.job === JOB) runJob(workerData as Job);
