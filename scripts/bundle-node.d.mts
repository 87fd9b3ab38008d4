/** See bundle-node.mjs. */
export function bundleForNode(entry: string, outfile: string, format?: "esm" | "cjs", extra?: import("esbuild").BuildOptions): Promise<void>;
