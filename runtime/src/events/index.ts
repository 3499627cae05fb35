// EventRecorder: writes events.k8s.io/v1 Events about an object (what `kubectl events` and
// `kubectl describe` show). Recording never blocks or fails the reconcile: the write happens in the
// background and a failure is logged. A manager whose role grants only core events (the marker
// kubebuilder users copy, `groups=core,resources=events`) gets core/v1 Events instead, and a manager
// that may write neither is told so once, with the marker that fixes it, rather than on every event.
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { format } from 'node:util';
import { groupVersion } from '../api/kind.js';
import type { KubeObject, MicroTime, ObjectMeta } from '../api/types.js';
import { Event as CoreEvent, type ObjectReference } from '../api/builtins.js';
import { metaTime, microTime } from '../api/internal/micro-time.js';
import type { Writer } from '../client/client.js';
import { isForbidden } from '../client/errors.js';
import { setRepeatingTimer, type Timer } from '../internal/timers/index.js';
import type { Logger } from '../log/index.js';

export type EventType = 'Normal' | 'Warning';

export interface EventRecorder {
  /** `action` defaults to `reason` (events.k8s.io/v1 requires one). */
  event(obj: KubeObject, type: EventType, reason: string, note: string, action?: string): void;
  /**
   * Like event(), with the note formatted printf-style (node's util.format: %s, %d, %i, %f, %j, %o, %%),
   * as client-go's Eventf: `recorder.eventf(obj, 'Warning', 'ScaleFailed', 'cannot scale %s to %d', name, n)`.
   */
  eventf(obj: KubeObject, type: EventType, reason: string, noteFormat: string, ...args: unknown[]): void;
}

/** The marker that lets the manager record events (the group the recorder writes first). */
export const EVENTS_RBAC_MARKER = '+kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch';

/** events.k8s.io/v1 Event. */
export interface EventsV1Event {
  series?: { count: number; lastObservedTime: MicroTime };
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  eventTime: MicroTime;
  action?: string;
  reason?: string;
  note?: string;
  type?: string;
  regarding?: ObjectReference;
  reportingController?: string;
  reportingInstance?: string;
}

export const EventsV1Event = groupVersion('events.k8s.io', 'v1').kind<EventsV1Event>('Event');

// The API server rejects notes over 1 kB.
const maxNoteBytes = 1024;

export interface EventRecorderOptions {
  /** The reporting controller, e.g. `memcached-controller` (shows as `source`). */
  name: string;
  writer: Writer;
  log: Logger;
  /** Namespace for events about cluster-scoped objects; default `default`. */
  defaultNamespace?: string;
  /** Called with each write so a manager can wait for them on shutdown. */
  track?: (p: Promise<unknown>) => void;
  /** Series and spam-filter timings (tests shorten them). */
  series?: SeriesOptions;
}

// How repeats become bounded API traffic, after client-go (tools/record/events_cache.go for core/v1,
// tools/events/event_broadcaster.go for events.k8s.io):
// - identical events (same object, type, reason, action and note) form a series: the first is created,
//   the second sets the series count to 2, later ones only count in memory; the count is written when the
//   series ends (no repeat for finishMs, 6 minutes), every refreshMs (30 minutes) while it goes on, and
//   on flush() (the manager flushes on shutdown);
// - events that differ only by note: from the 10th distinct note within 10 minutes the note becomes
//   "(combined from similar events): <note>" and they share one series (client-go's EventAggregator);
// - a new Event about an object passes a token bucket per object and type: 25 at once, then one per
//   5 minutes (client-go's spam filter); refused ones are dropped and counted at debug level.
export interface SeriesOptions {
  /** A series with no repeat for this long is written and forgotten; default 6 minutes. */
  finishMs?: number;
  /** A running series' count is written at least this often; default 30 minutes. */
  refreshMs?: number;
  /** Spam filter: burst and refill interval of the token bucket per object and event type; default 25 and 300 s. */
  spamBurst?: number;
  spamRefillMs?: number;
  /** Milliseconds since the epoch; default Date.now (tests pass a clock of their own). */
  clock?: () => number;
}

const aggregateMaxEvents = 10;
const aggregateIntervalMs = 10 * 60_000;
const maxLruEntries = 4096;

interface Series {
  name: string;
  namespace: string;
  count: number;
  /** The count the API server has. */
  written: number;
  lastObserved: number;
  lastWritten: number;
  /** The previous write (and the API it went to); the next waits for it so the Event exists before it is patched. */
  last: Promise<EventsApi | undefined>;
}

/** A recorder whose pending series counts can be written out at once. */
export interface SeriesEventRecorder extends EventRecorder {
  /** Writes every series count the API server does not have yet; resolves when written. */
  flush(): Promise<void>;
}

/** Where events go: events.k8s.io/v1 until the API server forbids it, then core/v1. */
type EventsApi = 'events.k8s.io' | 'core';

interface EventFields {
  name: string;
  namespace: string;
  type: EventType;
  reason: string;
  action: string;
  note: string;
  regarding: ObjectReference;
  at: Date;
}

/** A least-recently-used map: get() refreshes an entry, set() beyond `max` drops the oldest. */
class Lru<V> extends Map<string, V> {
  constructor(private readonly max: number) {
    super();
  }
  touch(key: string): V | undefined {
    const v = super.get(key);
    if (v !== undefined) {
      super.delete(key);
      super.set(key, v);
    }
    return v;
  }
  override set(key: string, v: V): this {
    super.delete(key);
    super.set(key, v);
    if (this.size > this.max) super.delete(this.keys().next().value as string);
    return this;
  }
}

export function createEventRecorder(opts: EventRecorderOptions): SeriesEventRecorder {
  const instance = `${opts.name}-${hostname()}`.slice(0, 128);
  const finishMs = opts.series?.finishMs ?? 6 * 60_000;
  const refreshMs = opts.series?.refreshMs ?? 30 * 60_000;
  const spamBurst = opts.series?.spamBurst ?? 25;
  const spamRefillMs = opts.series?.spamRefillMs ?? 300_000;
  const clock = opts.series?.clock ?? Date.now;
  const series = new Lru<Series>(maxLruEntries);
  const similar = new Lru<{ notes: Set<string>; last: number }>(maxLruEntries);
  const buckets = new Lru<{ tokens: number; at: number }>(maxLruEntries);
  let api: EventsApi = 'events.k8s.io';
  let toldDenied = false;
  let spamDropped = 0;
  let timer: Timer | undefined;

  const createIn = (target: EventsApi, e: EventFields): Promise<unknown> => {
    if (target === 'events.k8s.io') {
      const event: EventsV1Event = {
        apiVersion: EventsV1Event.apiVersion,
        kind: 'Event',
        metadata: { name: e.name, namespace: e.namespace },
        eventTime: microTime(e.at),
        type: e.type,
        reason: e.reason,
        action: e.action,
        note: e.note,
        regarding: e.regarding,
        reportingController: opts.name,
        reportingInstance: instance,
      };
      return opts.writer.create(EventsV1Event, event);
    }
    const time = metaTime(e.at);
    return opts.writer.create(CoreEvent, {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: e.name, namespace: e.namespace },
      involvedObject: e.regarding,
      type: e.type,
      reason: e.reason,
      action: e.action,
      message: e.note,
      count: 1,
      firstTimestamp: time,
      lastTimestamp: time,
      source: { component: opts.name, host: hostname() },
      reportingComponent: opts.name,
      reportingInstance: instance,
    });
  };

  const denied = (fields: { reason: string; regarding: string }, err: unknown): void => {
    if (toldDenied) {
      opts.log.debug('event not recorded: forbidden', fields);
      return;
    }
    toldDenied = true;
    opts.log.error(
      `events are not being recorded: the manager may not create events (forbidden in events.k8s.io and in the core group). ` +
      `Add \`// ${EVENTS_RBAC_MARKER}\` to a controller, run \`npm run manifests\` and redeploy. ` +
      'Further denied events are logged at debug level only.',
      err, fields,
    );
  };

  /** Creates the Event; on a 403 from events.k8s.io tries core/v1 once and keeps to it if allowed. */
  const create = async (e: EventFields): Promise<EventsApi | undefined> => {
    const fields = { reason: e.reason, regarding: `${e.regarding.namespace ?? ''}/${e.regarding.name ?? ''}` };
    const target = api;
    try {
      await createIn(target, e);
      return target;
    } catch (err) {
      if (!isForbidden(err)) {
        opts.log.error('could not record event', err, fields);
        return undefined;
      }
      if (target === 'core') { denied(fields, err); return undefined; }
      try {
        await createIn('core', e);
      } catch (coreErr) {
        if (isForbidden(coreErr)) denied(fields, err);
        else opts.log.error('could not record event', coreErr, fields);
        return undefined;
      }
      if (api === 'events.k8s.io') {
        api = 'core';
        opts.log.info(
          `events.k8s.io events are forbidden for this manager; recording core/v1 events, which its role allows. ` +
          `To record events.k8s.io events add \`// ${EVENTS_RBAC_MARKER}\` and run \`npm run manifests\`.`,
          fields,
        );
      }
      return 'core';
    }
  };

  /** Writes the series' count (series.count on events.k8s.io, count + lastTimestamp on core/v1) after its previous write. */
  const writeCount = (s: Series): Promise<EventsApi | undefined> => {
    const count = s.count;
    const at = new Date(s.lastObserved);
    s.written = count;
    s.lastWritten = clock();
    const write = s.last.then((createdIn) => {
      if (!createdIn) return undefined;
      const patched = createdIn === 'events.k8s.io'
        ? opts.writer.patch(EventsV1Event, { namespace: s.namespace, name: s.name }, { type: 'merge', body: { series: { count, lastObservedTime: microTime(at) } } })
        : opts.writer.patch(CoreEvent, { namespace: s.namespace, name: s.name }, { type: 'merge', body: { count, lastTimestamp: metaTime(at) } });
      return patched.then(
        () => createdIn,
        (err: unknown) => {
          opts.log.error('could not update event series', err, { event: `${s.namespace}/${s.name}` });
          return undefined;
        },
      );
    });
    s.last = write;
    opts.track?.(write);
    return write;
  };

  /** Ends quiet series (writing their last count) and refreshes long-running ones, as client-go's finishSeries and refreshExistingEventSeries. */
  const tick = () => {
    const now = clock();
    for (const [key, s] of series) {
      const quiet = now - s.lastObserved >= finishMs;
      if (s.count > s.written && (quiet || now - s.lastWritten >= refreshMs)) void writeCount(s);
      if (quiet) series.delete(key);
    }
    for (const [key, a] of similar) if (now - a.last > aggregateIntervalMs) similar.delete(key);
    if (series.size === 0) {
      timer?.clear();
      timer = undefined;
    }
  };

  /** The token bucket of an object and event type: false when the object has had its burst of new events. */
  const admit = (key: string, now: number): boolean => {
    const b = buckets.touch(key) ?? { tokens: spamBurst, at: now };
    b.tokens = Math.min(spamBurst, b.tokens + (now - b.at) / spamRefillMs);
    b.at = now;
    buckets.set(key, b);
    if (b.tokens < 1) return false;
    b.tokens -= 1;
    return true;
  };

  const event: EventRecorder['event'] = (obj, type, reason, note, action) => {
    const meta = obj.metadata ?? {};
    const namespace = meta.namespace || opts.defaultNamespace || 'default';
    const now = clock();
    const objectKey = JSON.stringify([meta.uid ?? `${meta.namespace}/${meta.name}`, obj.apiVersion, obj.kind, type]);
    const similarKey = JSON.stringify([objectKey, reason, action ?? reason]);
    let text = truncate(note);
    // client-go's EventAggregator: the 10th distinct note of the same event within 10 minutes, and every
    // one after it, is combined into one series.
    let a = similar.touch(similarKey);
    if (!a || now - a.last > aggregateIntervalMs) a = { notes: new Set(), last: now };
    a.notes.add(text);
    a.last = now;
    similar.set(similarKey, a);
    let key = JSON.stringify([similarKey, text]);
    if (a.notes.size >= aggregateMaxEvents) {
      a.notes.delete(text);
      text = truncate(`(combined from similar events): ${note}`);
      key = similarKey;
    }
    const seen = series.touch(key);
    if (seen && now - seen.lastObserved < finishMs) {
      seen.count++;
      seen.lastObserved = now;
      // The second occurrence is written at once (client-go's events.k8s.io broadcaster: the Event now
      // shows a series); later ones wait for the series to end, a refresh or flush().
      if (seen.count === 2) void writeCount(seen);
      return;
    }
    if (!admit(objectKey, now)) {
      spamDropped++;
      opts.log.debug('event dropped by the spam filter (too many events about this object)', { reason, regarding: `${meta.namespace ?? ''}/${meta.name ?? ''}`, dropped: spamDropped });
      return;
    }
    const name = `${meta.name ?? 'object'}.${randomBytes(8).toString('hex')}`;
    const write = create({
      name, namespace, type, reason, action: action ?? reason, note: text, at: new Date(now),
      regarding: {
        apiVersion: obj.apiVersion,
        kind: obj.kind,
        name: meta.name,
        namespace: meta.namespace,
        uid: meta.uid,
        resourceVersion: meta.resourceVersion,
      },
    });
    series.set(key, { name, namespace, count: 1, written: 1, lastObserved: now, lastWritten: now, last: write });
    opts.track?.(write);
    if (!timer) {
      timer = setRepeatingTimer(tick, Math.min(finishMs, refreshMs));
      // Series bookkeeping must not keep a finished process alive.
      timer.unref();
    }
  };

  return {
    event,
    eventf: (obj, type, reason, noteFormat, ...args) => event(obj, type, reason, format(noteFormat, ...args)),
    flush: async () => {
      const writes: Promise<unknown>[] = [];
      for (const s of series.values()) {
        if (s.count > s.written) writes.push(writeCount(s));
        else writes.push(s.last);
      }
      await Promise.all(writes);
    },
  };
}

function truncate(note: string): string {
  if (Buffer.byteLength(note) <= maxNoteBytes) return note;
  let out = note.slice(0, maxNoteBytes);
  while (Buffer.byteLength(out) > maxNoteBytes - 3) out = out.slice(0, -1);
  return out + '...';
}
