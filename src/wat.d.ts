/** A WebAssembly text file, imported as its module's bytes (scripts/wat.mjs assembles it at build time). */
declare module "*.wat" {
  const bytes: Uint8Array<ArrayBuffer>;
  export default bytes;
}
