// The proxy client-go uses for an API server when its cluster sets no proxy-url: net/http's
// ProxyFromEnvironment, i.e. golang.org/x/net/http/httpproxy (FromEnvironment + ProxyFunc). Its rules:
//   - https:// servers use HTTPS_PROXY, http:// servers HTTP_PROXY; the upper-case name wins when it
//     is non-empty, else the lower-case one (getEnvAny("HTTPS_PROXY", "https_proxy")); NO_PROXY likewise.
//   - a value without a scheme and host ("proxy.corp:3128", "10.0.0.1:3128", "proxy") is http://<value>.
//     A value that does not parse even then is an error here (proxyForCluster); Go drops some such
//     values and keeps others as a broken URL that fails on connect, neither of which helps anyone.
//   - a non-empty REQUEST_METHOD (a CGI process) makes HTTP_PROXY an error for http:// servers, checked
//     before NO_PROXY (go.dev/s/cgihttpproxy); HTTPS_PROXY is still used.
//   - "localhost" and loopback addresses (127.0.0.0/8, ::1, ::ffff:127.x.x.x) are never proxied.
//   - NO_PROXY: comma-separated, trimmed, case-insensitive entries; "*" disables proxying; an IP
//     (optionally ip:port or [ipv6]:port) matches that address; a CIDR matches addresses in it; a domain
//     matches itself and its subdomains, ".domain" and "*.domain" only subdomains, optionally with
//     :port; IP entries match only IP hosts and domain entries only names. A server without a port
//     counts as port 443 (https) or 80 (http).
// Which proxies the runtime can actually use is the kubeconfig's unsupportedProxy() (kubeconfig/internal/proxy-support.ts).
import net from 'node:net';
import { domainToASCII } from 'node:url';
import { unsupportedProxy } from '../kubeconfig/index.js';

export type Env = Readonly<Record<string, string | undefined>>;

export interface EnvProxy {
  /** The variable the proxy came from, as spelt in the environment (HTTPS_PROXY, https_proxy, ...). */
  variable: string;
  /** Its value as set. */
  value: string;
  /** The proxy URL (http:// added to a value without a scheme). */
  url: string;
}

/**
 * The proxy Go's ProxyFromEnvironment picks for `server`, or undefined for none. Throws, as Go does,
 * for HTTP_PROXY and an http:// server in a CGI environment.
 */
export function proxyFromEnvironment(server: URL, env: Env = process.env): EnvProxy | undefined {
  let found: [string, string] | undefined;
  if (server.protocol === 'https:') found = envAny(env, 'HTTPS_PROXY', 'https_proxy');
  else if (server.protocol === 'http:') found = envAny(env, 'HTTP_PROXY', 'http_proxy');
  if (!found) return undefined;
  const [variable, value] = found;
  const url = parseProxy(value);
  if (server.protocol === 'http:' && env.REQUEST_METHOD) {
    throw new Error(
      `refusing to use ${variable}=${value} for ${server.origin} because REQUEST_METHOD is set (a CGI environment, where a client can set HTTP_PROXY; see golang.org/s/cgihttpproxy); unset ${variable}`,
    );
  }
  const port = server.port || (server.protocol === 'https:' ? '443' : '80');
  if (!useProxy(server.hostname, port, envAny(env, 'NO_PROXY', 'no_proxy')?.[1] ?? '')) return undefined;
  return { variable, value, url };
}

/**
 * The proxy for requests to `cluster`: its proxy-url when set, else the environment's as client-go reads
 * it. One the runtime cannot use is an error (one line, saying what to change), never skipped silently.
 */
export function proxyForCluster(cluster: { name: string; server: string; proxyUrl?: string }, env: Env = process.env): string | undefined {
  if (cluster.proxyUrl) {
    const why = unsupportedProxy(cluster.proxyUrl, cluster.server);
    if (why) throw new Error(`cluster "${cluster.name}" sets ${why}`);
    return cluster.proxyUrl;
  }
  const server = new URL(cluster.server);
  let found: EnvProxy | undefined;
  try {
    found = proxyFromEnvironment(server, env);
  } catch (err) {
    throw new Error(`cluster "${cluster.name}": ${(err as Error).message}`);
  }
  if (!found) return undefined;
  const why = unsupportedProxy(found.url, cluster.server, `${found.variable}=${found.value} from the environment`);
  if (why) throw new Error(`cluster "${cluster.name}" gets ${why}; add ${server.hostname} to NO_PROXY or unset ${found.variable}`);
  return found.url;
}

function envAny(env: Env, ...names: string[]): [string, string] | undefined {
  for (const name of names) {
    const value = env[name];
    if (value) return [name, value];
  }
  return undefined;
}

// Go: url.Parse(value), and when that fails or has no scheme or host, url.Parse("http://" + value).
// Unparseable either way: the value as it is, which unsupportedProxy() calls "not a URL".
function parseProxy(value: string): string {
  try {
    if (new URL(value).host !== '') return value;
  } catch {
    // try with http:// below
  }
  try {
    new URL(`http://${value}`);
    return `http://${value}`;
  } catch {
    return value;
  }
}

/** Whether a request to host:port uses the proxy under `noProxy` (Go's config.useProxy). */
function useProxy(hostname: string, port: string, noProxy: string): boolean {
  const host = hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  if (host === 'localhost') return false;
  const ip = normalIp(host);
  if (ip && isLoopback(ip)) return false;
  for (const raw of noProxy.split(',')) {
    const entry = raw.trim().toLowerCase();
    if (entry === '') continue;
    if (entry === '*') return false;
    const cidr = parseCidr(entry);
    if (cidr) {
      if (ip && inCidr(ip, cidr)) return false;
      continue;
    }
    const split = splitHostPort(entry);
    let [entryHost, entryPort] = split ?? [entry, ''];
    if (split && entryHost === '') continue; // ":1" and the like: malformed, ignored
    const entryIp = normalIp(entryHost);
    if (entryIp) {
      if (ip === entryIp && (entryPort === '' || entryPort === port)) return false;
      continue;
    }
    if (ip) continue; // domain entries never match an IP
    if (entryHost.startsWith('*.')) entryHost = entryHost.slice(1);
    const matchHost = !entryHost.startsWith('.');
    const suffix = ascii(matchHost ? `.${entryHost}` : entryHost);
    if ((host.endsWith(suffix) || (matchHost && host === suffix.slice(1))) && (entryPort === '' || entryPort === port)) return false;
  }
  return true;
}

// Go's net.SplitHostPort: "host:port" with one colon, or "[host]:port"; undefined where Go errs.
function splitHostPort(s: string): [string, string] | undefined {
  if (s.startsWith('[')) {
    const m = /^\[([^[\]]*)\]:([^:[\]]*)$/.exec(s);
    return m ? [m[1]!, m[2]!] : undefined;
  }
  const colon = s.indexOf(':');
  if (colon < 0 || s.lastIndexOf(':') !== colon || /[[\]]/.test(s)) return undefined;
  return [s.slice(0, colon), s.slice(colon + 1)];
}

// The IDNA ASCII form Go compares with (a URL's hostname is in that form already).
function ascii(suffix: string): string {
  if (/^[\x00-\x7f]*$/.test(suffix)) return suffix;
  const converted = domainToASCII(suffix.slice(1));
  return converted ? `.${converted}` : suffix;
}

/** An IP in one spelling (IPv4 dotted, IPv6 as WHATWG URLs print it, IPv4-mapped IPv6 as IPv4), or undefined. */
function normalIp(s: string): string | undefined {
  if (net.isIPv4(s)) return s;
  if (!net.isIPv6(s)) return undefined;
  let v6: string;
  try {
    v6 = new URL(`http://[${s}]/`).hostname.slice(1, -1);
  } catch {
    return undefined; // zone ids: Go's ParseIP refuses them too
  }
  const mapped = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(v6);
  if (!mapped) return v6;
  const [hi, lo] = [parseInt(mapped[1]!, 16), parseInt(mapped[2]!, 16)];
  return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
}

function ipBytes(ip: string): number[] {
  if (net.isIPv4(ip)) return ip.split('.').map(Number);
  const [head = '', tail] = ip.split('::');
  const h = head ? head.split(':') : [];
  const t = tail ? tail.split(':') : [];
  const groups = tail === undefined ? h : [...h, ...Array<string>(8 - h.length - t.length).fill('0'), ...t];
  return groups.flatMap((g) => {
    const n = parseInt(g, 16);
    return [n >> 8, n & 255];
  });
}

function isLoopback(ip: string): boolean {
  return net.isIPv4(ip) ? ip.startsWith('127.') : ip === '::1';
}

interface Cidr {
  bytes: number[];
  bits: number;
}

// Go's net.ParseCIDR: an IP (the host bits may be set), "/" and a prefix length in range.
function parseCidr(entry: string): Cidr | undefined {
  const m = /^([^/]+)\/(\d{1,3})$/.exec(entry);
  if (!m) return undefined;
  const v4 = net.isIPv4(m[1]!);
  const ip = v4 ? m[1]! : net.isIPv6(m[1]!) ? normalIp(m[1]!) : undefined;
  const bits = Number(m[2]);
  if (!ip || bits > (v4 ? 32 : 128)) return undefined;
  // An IPv4-mapped IPv6 network stays 16 bytes long in Go and so never contains an IPv4 host.
  const bytes = v4 || !net.isIPv4(ip) ? ipBytes(ip) : [...Array<number>(10).fill(0), 255, 255, ...ipBytes(ip)];
  return { bytes, bits };
}

function inCidr(ip: string, cidr: Cidr): boolean {
  const bytes = ipBytes(ip);
  if (bytes.length !== cidr.bytes.length) return false;
  for (let bit = 0; bit < cidr.bits; bit++) {
    const mask = 0x80 >> (bit % 8);
    if ((bytes[bit >> 3]! & mask) !== (cidr.bytes[bit >> 3]! & mask)) return false;
  }
  return true;
}
