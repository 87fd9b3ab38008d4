/**
 * How the prompt hook's code loads another file of the bridge: through the entry's code cache
 * when the entry hands it one (see code-cache.ts), else plainly. Used by the build's seams.
 */

import { join } from "node:path";

export interface Loaded {
  exports: unknown;
  /** Tells the cache the run used the file's code as a typical run does (see CachedModule.complete). */
  complete: () => void;
}

export type Loader = (file: string) => Loaded;

let loader: Loader = (file) => ({
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- a file of the bridge, loaded on first use
  exports: require(join(__dirname, file)) as unknown,
  complete: () => {},
});

export function loadBeside(file: string): Loaded {
  return loader(file);
}

export function useLoader(load: Loader): void {
  loader = load;
}
