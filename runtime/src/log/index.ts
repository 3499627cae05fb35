// Structured JSON logging: one JSON object per line, as controller-runtime's zap production logger
// writes, so log pipelines can filter by controller, object and reconcile ID.

export type LogFields = Record<string, unknown>;

export interface Logger {
  info(msg: string, fields?: LogFields): void;
  error(msg: string, err?: unknown, fields?: LogFields): void;
  debug(msg: string, fields?: LogFields): void;
  /** A logger that adds `fields` to every line it writes. */
  child(fields: LogFields): Logger;
}

export type LogLevel = 'debug' | 'info' | 'error' | 'silent';

export interface LoggerOptions {
  /** Lowest level written; default 'info' (or $OPGEN_LOG_LEVEL). */
  level?: LogLevel;
  /** Where lines go; default process.stderr, like controller-runtime. */
  write?: (line: string) => void;
  /** Fields on every line. */
  fields?: LogFields;
}

const rank: Record<LogLevel, number> = { debug: 0, info: 1, error: 2, silent: 3 };

export function createLogger(opts: LoggerOptions = {}): Logger {
  const envLevel = process.env.OPGEN_LOG_LEVEL as LogLevel | undefined;
  const level = opts.level ?? (envLevel && envLevel in rank ? envLevel : 'info');
  const write = opts.write ?? ((line: string) => void process.stderr.write(line));
  return new JsonLogger(rank[level], write, opts.fields ?? {});
}

/** A logger that drops everything (for tests and libraries that were given none). */
export function silentLogger(): Logger {
  return createLogger({ level: 'silent' });
}

/**
 * An error as log fields: `error` (its message, as zap writes it), `stacktrace` (err.stack) and `causes`,
 * the `cause` chain outermost first, each with its own message and stack. A chain that loops stops
 * at the first error seen twice.
 */
export function errorFields(err: unknown): LogFields {
  if (!(err instanceof Error)) return { error: String(err) };
  const fields: LogFields = { error: err.message };
  if (err.stack) fields.stacktrace = err.stack;
  const causes: LogFields[] = [];
  const seen = new Set<unknown>([err]);
  for (let c: unknown = err.cause; c !== undefined && !seen.has(c); c = c instanceof Error ? c.cause : undefined) {
    seen.add(c);
    causes.push(c instanceof Error ? { error: c.message, ...(c.stack ? { stacktrace: c.stack } : {}) } : { error: String(c) });
  }
  if (causes.length > 0) fields.causes = causes;
  return fields;
}

class JsonLogger implements Logger {
  constructor(
    private readonly min: number,
    private readonly write: (line: string) => void,
    private readonly fields: LogFields,
  ) {}

  info(msg: string, fields?: LogFields): void {
    this.emit(1, 'info', msg, fields);
  }

  debug(msg: string, fields?: LogFields): void {
    this.emit(0, 'debug', msg, fields);
  }

  error(msg: string, err?: unknown, fields?: LogFields): void {
    if (this.min > 2) return;
    const extra: LogFields = { ...fields };
    if (err !== undefined) Object.assign(extra, errorFields(err));
    this.emit(2, 'error', msg, extra);
  }

  child(fields: LogFields): Logger {
    return new JsonLogger(this.min, this.write, { ...this.fields, ...fields });
  }

  private emit(levelRank: number, level: string, msg: string, fields?: LogFields): void {
    if (levelRank < this.min) return;
    const line = { level, ts: new Date().toISOString(), msg, ...this.fields, ...fields };
    let text: string;
    try {
      text = JSON.stringify(line);
    } catch {
      // Circular or BigInt fields must not take the operator down with them.
      text = JSON.stringify({ level, ts: line.ts, msg, logError: 'fields could not be serialised' });
    }
    this.write(text + '\n');
  }
}
