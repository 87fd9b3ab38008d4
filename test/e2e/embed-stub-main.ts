/**
 * The embedding stand-in as a process of its own, for the benchmark: `--delay MS --dim N`; prints
 * its URL, then `served MS` for each answer (see EmbedStub.onServed), and serves until killed.
 */

import { startEmbedStub } from "./embed-stub";

const arg = (name: string, fallback: number): number => {
  const at = process.argv.indexOf(`--${name}`);
  return at > 0 ? Number(process.argv[at + 1]) : fallback;
};
const stub = await startEmbedStub({}, arg("dim", 1024));
stub.delayMs = arg("delay", 20);
stub.onServed = (ms) => process.stdout.write(`served ${ms.toFixed(3)}\n`);
process.stdout.write(`${stub.url}\n`);
