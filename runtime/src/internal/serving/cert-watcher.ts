// Serving certificates that change under a running process (cert-manager renewing a Secret, a
// rotated CA) are picked up without a restart, as controller-runtime's certwatcher does: a file
// watch for promptness plus a periodic poll, because watches get lost when files are deleted and
// recreated. The folder is watched rather than the files, so a Secret volume's symlink swap
// (`..data` replaced atomically) is one event like any other. A half-written pair (a new
// certificate beside the old key) fails to load and is retried on the next event or poll; the
// certificate in use only changes to a pair that loads.
import { watch, readFileSync, type FSWatcher } from 'node:fs';
import { join } from 'node:path';
import type { SecureContextOptions } from 'node:tls';
import { setRepeatingTimer } from '../timers/index.js';
import { createSecureContext } from '../tls/node-tls.js';
import { TinyCa } from '../tls/tiny-ca.js';
import type { CertificateSource } from './http-server.js';

export interface CertWatcherOptions {
  certName?: string;
  keyName?: string;
  /** Poll interval; default 10 s as controller-runtime. */
  pollIntervalMs?: number;
  /** Told about a pair that did not load (it is retried). */
  onError?: (err: Error) => void;
  /** Told after a new pair was taken into use. */
  onReload?: () => void;
}

interface Pair {
  cert: Buffer;
  key: Buffer;
}

function readPair(certFile: string, keyFile: string): Pair {
  return { cert: readFileSync(certFile), key: readFileSync(keyFile) };
}

export class CertWatcher implements CertificateSource {
  private pair: Pair;
  private readonly listeners: ((next: SecureContextOptions) => void)[] = [];
  private readonly certFile: string;
  private readonly keyFile: string;
  private watcher?: FSWatcher;

  /** Reads the pair now; throws one line naming the folder when it is missing or does not load. */
  constructor(
    readonly dir: string,
    private readonly opts: CertWatcherOptions = {},
  ) {
    this.certFile = join(dir, opts.certName ?? 'tls.crt');
    this.keyFile = join(dir, opts.keyName ?? 'tls.key');
    try {
      this.pair = readPair(this.certFile, this.keyFile);
      createSecureContext(this.pair);
    } catch (err) {
      throw new Error(`cannot load the serving certificate ${this.certFile} / ${this.keyFile}: ${(err as Error).message}`);
    }
  }

  current(): SecureContextOptions {
    return { cert: this.pair.cert, key: this.pair.key };
  }

  onChange(listener: (next: SecureContextOptions) => void): void {
    this.listeners.push(listener);
  }

  /** Rereads the files; takes the pair into use when its bytes changed and it loads. True when swapped. */
  reload(): boolean {
    let next: Pair;
    try {
      next = readPair(this.certFile, this.keyFile);
      if (next.cert.equals(this.pair.cert) && next.key.equals(this.pair.key)) return false;
      createSecureContext(next);
    } catch (err) {
      this.opts.onError?.(err as Error);
      return false;
    }
    this.pair = next;
    for (const l of this.listeners) l(this.current());
    this.opts.onReload?.();
    return true;
  }

  /** Watches and polls until `signal` aborts. */
  start(signal: AbortSignal): void {
    if (signal.aborted) return;
    this.watchFolder();
    const poll = setRepeatingTimer(() => {
      this.watchFolder();
      this.reload();
    }, this.opts.pollIntervalMs ?? 10_000);
    poll.unref();
    signal.addEventListener(
      'abort',
      () => {
        poll.clear();
        this.watcher?.close();
        this.watcher = undefined;
      },
      { once: true },
    );
  }

  private watchFolder(): void {
    if (this.watcher) return;
    try {
      const w = watch(this.dir, { persistent: false }, () => this.reload());
      w.on('error', () => {
        w.close();
        if (this.watcher === w) this.watcher = undefined; // the next poll watches again
      });
      this.watcher = w;
    } catch {
      // The folder is gone for now (being recreated); the poll retries.
    }
  }
}

/** A fixed in-memory certificate (self-signed serving for local development). */
export class StaticCertificate implements CertificateSource {
  constructor(private readonly pair: { cert: string; key: string }) {}
  current(): SecureContextOptions {
    return { ...this.pair };
  }
  onChange(): void {}
}

/** A CA and a serving certificate for `hosts` made in memory; `caPem` is what clients must trust. */
export function selfSignedCertificate(hosts: string[], commonName: string): { source: StaticCertificate; caPem: string } {
  const ca = TinyCa.create(`${commonName}-ca`);
  const pair = ca.issue({ commonName, hosts, usage: 'server' });
  return { source: new StaticCertificate({ cert: pair.certPem, key: pair.keyPem }), caPem: ca.certPem };
}
