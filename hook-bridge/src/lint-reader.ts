/**
 * Lint's reading and secret scan on a second thread. On a large vault they are more than half of
 * lint's work: a worker reads the notes and hands their texts over as it goes, then scans them,
 * while the main thread parses what it has been given and builds the link graph.
 */

import { isMainThread, MessageChannel, receiveMessageOnPort, Worker, workerData, type MessagePort } from "node:worker_threads";
import { readNotesHere, type ReadNotes } from "../../src/core/lint/lint";
import { scanForSecrets, type SecretScan } from "../../src/core/lint/secrets";
import { readNote } from "../../src/core/vault/scan";

const JOB = "vault-memory lint reader";

// Below this many notes, reading and scanning cost less than starting a thread (about 30 ms).
const MIN_NOTES = 1000;
// Texts go over in batches: a message per note would cost more than the copy of its text.
const BATCH = 128;
// How many batches the worker keeps read ahead of what the main thread has taken.
const LEAD = 4;
// The most the worker holds read and not yet scanned, in characters.
const READ_AHEAD = 64 * 2 ** 20;
// The main thread gives up on a worker that does nothing it can see for this long, and reads
// and scans the rest itself: the worker saves time and is never needed for an answer.
const STALL_MS = 5000;
const [PROGRESS, TAKEN] = [0, 1];

interface Job {
  job: typeof JOB;
  abs: string[];
  /** At PROGRESS, a count of what the worker has done (each batch read or scanned); at TAKEN, how many texts the main thread has taken. */
  signal: Int32Array;
  port: MessagePort;
}

/** Secrets found, by index into the job's notes, in the first `scanned` of them. */
interface Answer {
  scanned: number;
  found: [number, SecretScan][];
}

/**
 * A batch of texts from note `from` on, as one string cut at `ends`. One large string goes to V8's
 * large-object space, and each note is a slice of it: texts sent one by one were copied from the
 * young generation to the old at every scavenge, a fifth of the main thread's time.
 */
type Message = { from: number; joined: string; ends: number[] } | { answer: Answer };

export const readNotesInWorker: ReadNotes = (files) => {
  const bundle = typeof __filename === "string" && __filename.endsWith(".cjs") ? __filename : "";
  // Run from source (the tests), there is no bundle for a worker to load.
  if (!bundle || files.length < MIN_NOTES) return readNotesHere(files);
  const signal = new Int32Array(new SharedArrayBuffer(8));
  const { port1, port2 } = new MessageChannel();
  let worker: Worker;
  try {
    const job: Job = { job: JOB, abs: files.map((f) => f.abs), signal, port: port2 };
    // stdout and stderr of its own: piping them to ours would make Node open our stdout as a
    // stream, which turns a pipe non-blocking, and the report's one writeSync would be cut short.
    worker = new Worker(bundle, { workerData: job, transferList: [port2], stdout: true, stderr: true });
  } catch {
    return readNotesHere(files);
  }
  worker.unref();
  const texts: (string | undefined)[] = [];
  let received = 0;
  let answer: Answer | undefined;
  let givenUp = false;
  const take = (): boolean => {
    const message = receiveMessageOnPort(port1)?.message as Message | undefined;
    if (!message) return false;
    if ("answer" in message) answer = message.answer;
    else {
      let start = 0;
      message.ends.forEach((end, k) => {
        texts[message.from + k] = message.joined.slice(start, end);
        start = end;
      });
      received = message.from + message.ends.length;
    }
    return true;
  };
  // The main thread has nothing else to do meanwhile, so it waits here rather than in its event loop.
  const waitFor = (ready: () => boolean): void => {
    while (!givenUp && !ready()) {
      const seen = Atomics.load(signal, PROGRESS);
      if (!take() && Atomics.wait(signal, PROGRESS, seen, STALL_MS) === "timed-out") givenUp = true;
    }
  };
  return {
    text(i) {
      waitFor(() => i < received || answer !== undefined);
      const text = texts[i];
      texts[i] = undefined;
      Atomics.store(signal, TAKEN, i + 1);
      // What the worker did not read (it stopped, or could not read this note) is read here,
      // and a note that cannot be read throws here, saying why, for lintVault to skip.
      return text ?? readNote(files[i].abs);
    },
    secretScans() {
      waitFor(() => answer !== undefined);
      port1.close();
      void worker.terminate();
      const scans = new Map<string, SecretScan>();
      if (!answer) return scans;
      const none: SecretScan = { kinds: [], line: 0 };
      for (let i = 0; i < answer.scanned; i++) scans.set(files[i].path, none);
      for (const [i, scan] of answer.found) scans.set(files[i].path, scan);
      return scans;
    },
  };
};

function runJob(job: Job): void {
  const n = job.abs.length;
  const answer: Answer = { scanned: 0, found: [] };
  const held: string[] = []; // held[i]: note i's text, read and not yet scanned
  let heldChars = 0;
  let read = 0;
  let unreadable = false;
  const signal = (): void => {
    Atomics.add(job.signal, PROGRESS, 1);
    Atomics.notify(job.signal, PROGRESS);
  };
  const readBatch = (): void => {
    const from = read;
    try {
      for (; read < n && read - from < BATCH; read++) {
        held[read] = readNote(job.abs[read]);
        heldChars += held[read].length;
      }
    } catch {
      // The main thread reads this note itself, and says what is wrong with it.
      unreadable = true;
    }
    if (read === from) return;
    const joined = held.slice(from, read).join("");
    const ends: number[] = [];
    // What is held until scanned are slices of the joined string, for the same reason.
    for (let i = from, start = 0; i < read; start = ends[ends.length - 1], i++) {
      ends.push(start + held[i].length);
      held[i] = joined.slice(start, ends[ends.length - 1]);
    }
    job.port.postMessage({ from, joined, ends } satisfies Message);
  };
  const scanBatch = (): void => {
    for (const upTo = Math.min(read, answer.scanned + BATCH); answer.scanned < upTo; answer.scanned++) {
      const i = answer.scanned;
      const scan = scanForSecrets(held[i]);
      if (scan.kinds.length > 0) answer.found.push([i, scan]);
      heldChars -= held[i].length;
      held[i] = "";
    }
  };
  try {
    while (answer.scanned < read || (read < n && !unreadable)) {
      const canRead = read < n && !unreadable;
      // Keep a few batches ahead of the main thread and scan otherwise: the main thread is not
      // kept waiting, and the scans it does not wait for are left for the end, while it builds
      // the graph. Read anyway when nothing is left to scan, up to a bound on what is held.
      const mainIsClose = read - Atomics.load(job.signal, TAKEN) < LEAD * BATCH;
      if (canRead && (mainIsClose || answer.scanned === read) && heldChars < READ_AHEAD) readBatch();
      else scanBatch();
      signal();
    }
  } finally {
    job.port.postMessage({ answer } satisfies Message);
    job.port.close();
    signal();
  }
}

// The worker loads this same bundle; in it, this module runs the job instead of waiting for a command.
if (!isMainThread && (workerData as Partial<Job> | null)?.job === JOB) runJob(workerData as Job);
