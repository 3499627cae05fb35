// EventRecorder: writes events.k8s.io/v1 Events about an object (what `kubectl events` and
// `kubectl describe` show). Recording never blocks or fails the reconcile: the write happens in the
// background and a failure is logged.
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { groupVersion } from '../api/kind.js';
import type { KubeObject, MicroTime, ObjectMeta } from '../api/types.js';
import type { ObjectReference } from '../api/builtins.js';
import { microTime } from '../api/internal/micro-time.js';
import type { Writer } from '../client/client.js';
import type { Logger } from '../log/index.js';

export type EventType = 'Normal' | 'Warning';

export interface EventRecorder {
  /** `action` defaults to `reason` (events.k8s.io/v1 requires one). */
  event(obj: KubeObject, type: EventType, reason: string, note: string, action?: string): void;
}

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
  /** The previous write; the next one waits for it so the Event exists before it is patched. */
  last: Promise<boolean>;
}

export function createEventRecorder(opts: EventRecorderOptions): EventRecorder {
  const instance = `${opts.name}-${hostname()}`.slice(0, 128);
  const series = new Map<string, Series>();
  return {
    event(obj, type, reason, note, action) {
      const meta = obj.metadata ?? {};
      const namespace = meta.namespace || opts.defaultNamespace || 'default';
      const text = truncate(note);
      const key = JSON.stringify([meta.uid ?? `${meta.namespace}/${meta.name}`, obj.kind, type, reason, action ?? reason, text]);
      const now = Date.now();
      const seen = series.get(key);
      let write: Promise<boolean>;
      if (seen && now - seen.firstSeen < seriesWindowMs) {
        seen.count++;
        const count = seen.count;
        write = seen.last.then((created) => {
          if (!created) return false;
          const body = { series: { count, lastObservedTime: microTime(new Date()) } };
          return opts.writer.patch(EventsV1Event, { namespace: seen.namespace, name: seen.name }, { type: 'merge', body }).then(
            () => true,
            (err: unknown) => {
              opts.log.error('could not update event series', err, { reason, regarding: `${meta.namespace ?? ''}/${meta.name ?? ''}` });
              return false;
            },
          );
        });
        seen.last = write;
      } else {
        const name = `${meta.name ?? 'object'}.${randomBytes(8).toString('hex')}`;
        const event: EventsV1Event = {
          apiVersion: EventsV1Event.apiVersion,
          kind: 'Event',
          metadata: { name, namespace },
          eventTime: microTime(new Date(now)),
          type,
          reason,
          action: action ?? reason,
          note: text,
          regarding: {
            apiVersion: obj.apiVersion,
            kind: obj.kind,
            name: meta.name,
            namespace: meta.namespace,
            uid: meta.uid,
            resourceVersion: meta.resourceVersion,
          },
          reportingController: opts.name,
          reportingInstance: instance,
        };
        write = opts.writer.create(EventsV1Event, event).then(
          () => true,
          (err: unknown) => {
            opts.log.error('could not record event', err, { reason, regarding: `${meta.namespace ?? ''}/${meta.name ?? ''}` });
            return false;
          },
        );
        series.delete(key);
        series.set(key, { name, namespace, count: 1, firstSeen: now, last: write });
        // Forget the oldest series so a long-running operator does not grow without bound.
        if (series.size > maxTrackedSeries) series.delete(series.keys().next().value as string);
      }
      opts.track?.(write);
    },
  };
}

function truncate(note: string): string {
  if (Buffer.byteLength(note) <= maxNoteBytes) return note;
  let out = note.slice(0, maxNoteBytes);
  while (Buffer.byteLength(out) > maxNoteBytes - 3) out = out.slice(0, -1);
  return out + '...';
}
