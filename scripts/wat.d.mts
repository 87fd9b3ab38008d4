/** See wat.mjs. */
export function watToWasm(path: string): Promise<Uint8Array>;
export function watModuleSource(path: string): Promise<string>;
export function wasmFromText(): import("esbuild").Plugin;
