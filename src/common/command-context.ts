/** Runs opgen with argv in cwd and returns its exit code and output. */
export type Opgen = (cwd: string, argv: string[]) => Promise<{ code: number; output: string }>;

/** What every command gets from the CLI: where it runs and where its output goes. */
export interface CommandContext {
  /** The directory the command works on (the user's working directory). */
  cwd: string;
  /** One line of normal output (stdout). */
  out: (line: string) => void;
  /** One line of diagnostics (stderr). */
  err: (line: string) => void;
  /** This opgen, in process (the CLI fills it in): `opgen update` replays the project's commands with it. */
  opgen?: Opgen;
}
