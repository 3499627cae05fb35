// One error type for every user-facing failure: a position (file:line:col, or a flag), a message and
// the fix. The CLI prints `format()` as one line and exits non-zero; nothing else is shown to users.

export interface Position {
  /** Path as the user would type it (relative to the working directory when inside it). */
  file: string;
  /** 1-based. */
  line?: number;
  /** 1-based. */
  column?: number;
}

export class OpgenError extends Error {
  override readonly name = 'OpgenError';

  constructor(
    message: string,
    readonly where?: Position | { flag: string },
    readonly fix?: string,
  ) {
    super(message);
  }

  /** `file:line:col: error: message (fix)` — the single line the CLI prints. */
  format(): string {
    const fix = this.fix ? ` (${this.fix})` : '';
    return `${formatWhere(this.where)}error: ${this.message}${fix}`;
  }
}

function formatWhere(where: OpgenError['where']): string {
  if (!where) return '';
  if ('flag' in where) return `${where.flag}: `;
  let out = where.file;
  if (where.line !== undefined) out += `:${where.line}`;
  if (where.line !== undefined && where.column !== undefined) out += `:${where.column}`;
  return `${out}: `;
}

/** Several errors found in one pass (a generator reports every bad marker, not just the first). */
export class OpgenErrors extends Error {
  override readonly name = 'OpgenErrors';

  constructor(readonly errors: OpgenError[]) {
    super(errors.map((e) => e.format()).join('\n'));
  }
}

export function isOpgenError(err: unknown): err is OpgenError | OpgenErrors {
  return err instanceof OpgenError || err instanceof OpgenErrors;
}
