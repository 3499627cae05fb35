// The standard OpenTelemetry environment variables, read once when a manager is created. Tracing is
// off unless asked for: OTEL_TRACES_EXPORTER=otlp and/or console, or an OTLP endpoint
// (OTEL_EXPORTER_OTLP_ENDPOINT / OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) is set; OTEL_SDK_DISABLED=true or
// OTEL_TRACES_EXPORTER=none turn it off. (The SDKs default to otlp; an operator that starts sending
// spans to localhost:4318 because nothing was configured would only log failures.) A setting the
// built-in exporters cannot honour is one error line naming the variable, and the operator runs
// without tracing.
import { hostname } from 'node:os';
import type { Logger } from '../log/index.js';
import { ConsoleSpanExporter, fanOut } from './console.js';
import { OtlpHttpExporter } from './otlp.js';
import { alwaysOff, alwaysOn, parentBased, traceIdRatio, Tracer, type Attributes, type Sampler, type SpanExporter } from './tracer.js';

export type Env = Record<string, string | undefined>;

/** A Tracer configured from OTEL_* variables, or undefined when tracing is off (or misconfigured: logged). */
export function tracerFromEnv(env: Env = process.env, log?: Logger): Tracer | undefined {
  try {
    const config = tracingConfig(env);
    if (!config) return undefined;
    const exporters: SpanExporter[] = [];
    const serviceName = String(config.resource['service.name']);
    if (config.otlp) {
      log?.info('tracing: exporting spans over OTLP/HTTP (JSON)', { url: config.otlp.url, serviceName });
      exporters.push(new OtlpHttpExporter({ ...config.otlp, resource: config.resource, log }));
    }
    if (config.console) {
      log?.info('tracing: writing spans to stdout, one JSON object per line', { serviceName });
      exporters.push(new ConsoleSpanExporter(config.resource));
    }
    return new Tracer(fanOut(exporters), config.sampler);
  } catch (err) {
    log?.error(`tracing is off: ${(err as Error).message}`);
    return undefined;
  }
}

export interface TracingConfig {
  resource: Attributes;
  sampler: Sampler;
  /** OTEL_TRACES_EXPORTER names otlp, or only an endpoint is set: where and how spans are sent. */
  otlp?: OtlpConfig;
  /** OTEL_TRACES_EXPORTER names console: each span is written to stdout as it ends. */
  console: boolean;
}

export interface OtlpConfig {
  url: string;
  headers: Record<string, string>;
  timeoutMs: number;
  scheduleDelayMs: number;
  maxExportBatchSize: number;
  maxQueueSize: number;
}

/** What the variables ask for; undefined when tracing is off; throws one-line errors for what cannot be done. */
export function tracingConfig(env: Env): TracingConfig | undefined {
  const value = (name: string) => {
    const v = env[name]?.trim();
    return v === '' ? undefined : v;
  };
  if (value('OTEL_SDK_DISABLED')?.toLowerCase() === 'true') return undefined;
  const exporters = (value('OTEL_TRACES_EXPORTER') ?? '').split(',').map((e) => e.trim()).filter(Boolean);
  const tracesEndpoint = value('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT');
  const endpoint = value('OTEL_EXPORTER_OTLP_ENDPOINT');
  if (exporters.includes('none')) return undefined;
  if (exporters.length === 0 && !tracesEndpoint && !endpoint) return undefined;
  const other = exporters.filter((e) => e !== 'otlp' && e !== 'console');
  if (other.length > 0) throw new Error(`OTEL_TRACES_EXPORTER=${other.join(',')} is not supported; use otlp, console or both (otlp,console), or none`);

  const resource: Attributes = { ...keyValues(value('OTEL_RESOURCE_ATTRIBUTES'), 'OTEL_RESOURCE_ATTRIBUTES') };
  resource['service.name'] = value('OTEL_SERVICE_NAME') ?? resource['service.name'] ?? 'unknown_service:node';
  resource['host.name'] ??= hostname();
  resource['telemetry.sdk.name'] = '@opgen/runtime';
  resource['telemetry.sdk.language'] = 'nodejs';
  const wantsOtlp = exporters.length === 0 || exporters.includes('otlp');
  return {
    resource,
    sampler: sampler(value('OTEL_TRACES_SAMPLER'), value('OTEL_TRACES_SAMPLER_ARG')),
    ...(wantsOtlp ? { otlp: otlpConfig(env, value) } : {}),
    console: exporters.includes('console'),
  };
}

function otlpConfig(env: Env, value: (name: string) => string | undefined): OtlpConfig {
  const tracesEndpoint = value('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT');
  const endpoint = value('OTEL_EXPORTER_OTLP_ENDPOINT');

  const protocol = value('OTEL_EXPORTER_OTLP_TRACES_PROTOCOL') ?? value('OTEL_EXPORTER_OTLP_PROTOCOL');
  if (protocol && protocol !== 'http/json') {
    const which = value('OTEL_EXPORTER_OTLP_TRACES_PROTOCOL') ? 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL' : 'OTEL_EXPORTER_OTLP_PROTOCOL';
    throw new Error(`${which}=${protocol} is not supported: @opgen/runtime exports OTLP over HTTP with the JSON encoding; set it to http/json (a collector's OTLP receiver accepts it on port 4318)`);
  }
  // The traces endpoint is used as given; the general one gets /v1/traces appended (the spec's rule).
  const url = tracesEndpoint ?? `${(endpoint ?? 'http://localhost:4318').replace(/\/+$/, '')}/v1/traces`;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new Error(`${tracesEndpoint ? 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT' : 'OTEL_EXPORTER_OTLP_ENDPOINT'}=${tracesEndpoint ?? endpoint} is not a URL; write e.g. http://otel-collector:4318`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new Error(`the OTLP endpoint ${url} must be http:// or https://`);
  }
  return {
    url,
    headers: keyValues(value('OTEL_EXPORTER_OTLP_TRACES_HEADERS') ?? value('OTEL_EXPORTER_OTLP_HEADERS'), 'OTEL_EXPORTER_OTLP_HEADERS'),
    timeoutMs: positive(env, 'OTEL_EXPORTER_OTLP_TRACES_TIMEOUT') ?? positive(env, 'OTEL_EXPORTER_OTLP_TIMEOUT') ?? 10_000,
    scheduleDelayMs: positive(env, 'OTEL_BSP_SCHEDULE_DELAY') ?? 5000,
    maxExportBatchSize: positive(env, 'OTEL_BSP_MAX_EXPORT_BATCH_SIZE') ?? 512,
    maxQueueSize: positive(env, 'OTEL_BSP_MAX_QUEUE_SIZE') ?? 2048,
  };
}

function sampler(name: string | undefined, arg: string | undefined): Sampler {
  const ratio = () => {
    const r = arg === undefined ? 1 : Number(arg);
    if (!(r >= 0 && r <= 1)) throw new Error(`OTEL_TRACES_SAMPLER_ARG=${arg} must be a number from 0 to 1`);
    return r;
  };
  switch (name ?? 'parentbased_always_on') {
    case 'always_on': return alwaysOn();
    case 'always_off': return alwaysOff();
    case 'traceidratio': return traceIdRatio(ratio());
    case 'parentbased_always_on': return parentBased(alwaysOn());
    case 'parentbased_always_off': return parentBased(alwaysOff());
    case 'parentbased_traceidratio': return parentBased(traceIdRatio(ratio()));
    default:
      throw new Error(`OTEL_TRACES_SAMPLER=${name} is not supported; use always_on, always_off, traceidratio or parentbased_always_on/_always_off/_traceidratio`);
  }
}

/** `k1=v1,k2=v2` with percent-encoded values (W3C baggage style, as the spec asks). */
function keyValues(text: string | undefined, variable: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of (text ?? '').split(',')) {
    if (part.trim() === '') continue;
    const eq = part.indexOf('=');
    if (eq <= 0) throw new Error(`${variable}: "${part.trim()}" is not key=value`);
    out[part.slice(0, eq).trim()] = decodeURIComponent(part.slice(eq + 1).trim());
  }
  return out;
}

function positive(env: Env, name: string): number | undefined {
  const v = env[name]?.trim();
  if (!v) return undefined;
  const n = Number(v);
  if (!(n > 0) || !Number.isFinite(n)) throw new Error(`${name}=${v} must be a positive number`);
  return n;
}
