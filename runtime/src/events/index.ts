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
}

// The same event about the same object within this window becomes one Event with a growing
// `series.count` (as client-go's events broadcaster does) instead of a new object each time.
const seriesWindowMs = 6 * 60_000;
const maxTrackedSeries = 4096;

interface Series {
  name: string;
  namespace: string;
  count: number;
  firstSeen: number;
  /** The previous write (and the API it went to); the next waits for it so the Event exists before it is patched. */
  last: Promise<EventsApi | undefined>;
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

export function createEventRecorder(opts: EventRecorderOptions): EventRecorder {
  const instance = `${opts.name}-${hostname()}`.slice(0, 128);
  const series = new Map<string, Series>();
  let api: EventsApi = 'events.k8s.io';
  let toldDenied = false;

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

  const event: EventRecorder['event'] = (obj, type, reason, note, action) => {
    const meta = obj.metadata ?? {};
    const namespace = meta.namespace || opts.defaultNamespace || 'default';
    const text = truncate(note);
    const key = JSON.stringify([meta.uid ?? `${meta.namespace}/${meta.name}`, obj.kind, type, reason, action ?? reason, text]);
    const now = Date.now();
    const seen = series.get(key);
    let write: Promise<EventsApi | undefined>;
    if (seen && now - seen.firstSeen < seriesWindowMs) {
      seen.count++;
      const count = seen.count;
      write = seen.last.then((createdIn) => {
        if (!createdIn) return undefined;
        const at = new Date();
        const patched = createdIn === 'events.k8s.io'
          ? opts.writer.patch(EventsV1Event, { namespace: seen.namespace, name: seen.name }, { type: 'merge', body: { series: { count, lastObservedTime: microTime(at) } } })
          : opts.writer.patch(CoreEvent, { namespace: seen.namespace, name: seen.name }, { type: 'merge', body: { count, lastTimestamp: metaTime(at) } });
        return patched.then(
          () => createdIn,
          (err: unknown) => {
            opts.log.error('could not update event series', err, { reason, regarding: `${meta.namespace ?? ''}/${meta.name ?? ''}` });
            return undefined;
          },
        );
      });
      seen.last = write;
    } else {
      const name = `${meta.name ?? 'object'}.${randomBytes(8).toString('hex')}`;
      write = create({
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
      series.delete(key);
      series.set(key, { name, namespace, count: 1, firstSeen: now, last: write });
      // Forget the oldest series so a long-running operator does not grow without bound.
      if (series.size > maxTrackedSeries) series.delete(series.keys().next().value as string);
    }
    opts.track?.(write);
  };

  return {
    event,
    eventf: (obj, type, reason, noteFormat, ...args) => event(obj, type, reason, format(noteFormat, ...args)),
  };
}

function truncate(note: string): string {
  if (Buffer.byteLength(note) <= maxNoteBytes) return note;
  let out = note.slice(0, maxNoteBytes);
  while (Buffer.byteLength(out) > maxNoteBytes - 3) out = out.slice(0, -1);
  return out + '...';
}
