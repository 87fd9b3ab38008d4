/** The person's home folder, for the files Vault Memory keeps outside any vault. */

/**
 * HOME (USERPROFILE on Windows), else Node's answer. node:os is loaded only when neither is set,
 * which hooks never see: loading it cost every prompt a third of a millisecond.
 */
export function homeDir(env: NodeJS.ProcessEnv = process.env): string {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded only without HOME, see above
  return env.HOME || env.USERPROFILE || (require("node:os") as typeof import("node:os")).homedir();
}
