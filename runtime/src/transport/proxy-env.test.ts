// The proxy client-go would use from the environment (proxy-env.ts), case by case against Go's own
// tables: golang.org/x/net http/httpproxy/proxy_test.go (proxyForURLTests, UseProxyTests with its
// noProxy string, TestAllNoProxy, TestInvalidNoProxy, TestFromEnvironment*), and for the rest the rules
// in http/httpproxy/proxy.go (getEnvAny, canonicalAddr's portMap, useProxy's loopback check), read at
// golang/net 0ca694d2a5adcce7f36d4d65e5f8d72390d94051.
import { describe, expect, it } from 'vitest';
import { proxyForCluster, proxyFromEnvironment, type Env } from './proxy-env.js';

const proxyFor = (server: string, env: Env) => proxyFromEnvironment(new URL(server), env)?.url;

describe('proxyFromEnvironment: Go\'s proxyForURLTests (HTTPProxy -> HTTP_PROXY, HTTPSProxy -> HTTPS_PROXY, CGI -> REQUEST_METHOD)', () => {
  const cases: [string, Env, string, string | undefined][] = [
    ['host:port', { HTTP_PROXY: '127.0.0.1:8080' }, 'http://example.com', 'http://127.0.0.1:8080'],
    ['name:port', { HTTP_PROXY: 'cache.corp.example.com:1234' }, 'http://example.com', 'http://cache.corp.example.com:1234'],
    ['name', { HTTP_PROXY: 'cache.corp.example.com' }, 'http://example.com', 'http://cache.corp.example.com'],
    ['single label (a scheme to url.Parse)', { HTTP_PROXY: 'localhost' }, 'http://example.com', 'http://localhost'],
    ['https proxy kept', { HTTP_PROXY: 'https://cache.corp.example.com' }, 'http://example.com', 'https://cache.corp.example.com'],
    ['http URL', { HTTP_PROXY: 'http://127.0.0.1:8080' }, 'http://example.com', 'http://127.0.0.1:8080'],
    ['socks5 kept', { HTTP_PROXY: 'socks5://127.0.0.1' }, 'http://example.com', 'socks5://127.0.0.1'],
    ['unknown scheme kept', { HTTP_PROXY: 'foo://host' }, 'http://example.com', 'foo://host'],
    ['http server: HTTP_PROXY', { HTTP_PROXY: 'http.proxy.tld', HTTPS_PROXY: 'secure.proxy.tld' }, 'http://insecure.tld/', 'http://http.proxy.tld'],
    ['https server: HTTPS_PROXY', { HTTP_PROXY: 'http.proxy.tld', HTTPS_PROXY: 'secure.proxy.tld' }, 'https://secure.tld/', 'http://secure.proxy.tld'],
    ['https server: https proxy', { HTTP_PROXY: 'http.proxy.tld', HTTPS_PROXY: 'https://secure.proxy.tld' }, 'https://secure.tld/', 'https://secure.proxy.tld'],
    ['https server: HTTP_PROXY alone is not used', { HTTP_PROXY: 'http.proxy.tld' }, 'https://secure.tld/', undefined],
    ['HTTPS_PROXY is used in CGI', { HTTPS_PROXY: 'https://secure.proxy.tld', REQUEST_METHOD: 'GET' }, 'https://secure.tld/', 'https://secure.proxy.tld'],
    ['nothing set', {}, 'http://example.com', undefined],
    ['NO_PROXY example.com, example.com', { NO_PROXY: 'example.com', HTTP_PROXY: 'proxy' }, 'http://example.com/', undefined],
    ['NO_PROXY .example.com, example.com', { NO_PROXY: '.example.com', HTTP_PROXY: 'proxy' }, 'http://example.com/', 'http://proxy'],
    ['NO_PROXY ample.com, example.com', { NO_PROXY: 'ample.com', HTTP_PROXY: 'proxy' }, 'http://example.com/', 'http://proxy'],
    ['NO_PROXY example.com, foo.example.com', { NO_PROXY: 'example.com', HTTP_PROXY: 'proxy' }, 'http://foo.example.com/', undefined],
    ['NO_PROXY .foo.com, example.com', { NO_PROXY: '.foo.com', HTTP_PROXY: 'proxy' }, 'http://example.com/', 'http://proxy'],
    ['NO_PROXY .示例.com, www.示例.com', { NO_PROXY: '.示例.com', HTTP_PROXY: 'proxy' }, 'http://www.示例.com', undefined],
    ['NO_PROXY xn--fsq092h.com, www.示例.com', { NO_PROXY: 'xn--fsq092h.com', HTTP_PROXY: 'proxy' }, 'http://www.示例.com', undefined],
    ['NO_PROXY 示例.com, www.xn--fsq092h.com', { NO_PROXY: '示例.com', HTTP_PROXY: 'proxy' }, 'http://www.xn--fsq092h.com', undefined],
  ];
  it.each(cases)('%s', (_name, env, server, want) => {
    expect(proxyFor(server, env)).toBe(want);
  });

  it('HTTP_PROXY in a CGI environment (REQUEST_METHOD set) is an error for http:// servers, as Go\'s (issue 16405)', () => {
    expect(() => proxyFor('http://example.com', { HTTP_PROXY: 'http://10.1.2.3:8080', REQUEST_METHOD: 'PUT' })).toThrow(
      'refusing to use HTTP_PROXY=http://10.1.2.3:8080 for http://example.com because REQUEST_METHOD is set (a CGI environment, where a client can set HTTP_PROXY; see golang.org/s/cgihttpproxy); unset HTTP_PROXY',
    );
    // Go checks this before NO_PROXY and localhost, so those do not help either.
    expect(() => proxyFor('http://localhost:8080', { HTTP_PROXY: 'proxy', NO_PROXY: '*', REQUEST_METHOD: 'GET' })).toThrow(/REQUEST_METHOD is set/);
    expect(proxyFor('http://example.com', { HTTP_PROXY: 'proxy', REQUEST_METHOD: '' })).toBe('http://proxy'); // empty: not CGI (TestFromEnvironment)
  });
});

describe('proxyFromEnvironment: NO_PROXY as Go\'s UseProxyTests (each host at :80)', () => {
  const noProxy = 'foobar.com, .barbaz.net, *.wildcard.io, 192.168.1.1, 192.168.1.2:81, 192.168.1.3:80, 10.0.0.0/30, 2001:db8::52:0:1, [2001:db8::52:0:2]:443, [2001:db8::52:0:3]:80, 2002:db8:a::45/64';
  const useProxyTests: [string, boolean][] = [
    ['localhost', false], ['127.0.0.1', false], ['127.0.0.2', false], ['[::1]', false], ['[::2]', true],
    ['192.168.1.1', false], ['192.168.1.2', true], ['192.168.1.3', false], ['192.168.1.4', true], ['10.0.0.2', false],
    ['[2001:db8::52:0:1]', false], ['[2001:db8::52:0:2]', true], ['[2001:db8::52:0:3]', false], ['[2002:db8:a::123]', false], ['[fe80::424b:c8be:1643:a1b6]', true],
    ['barbaz.net', true], ['www.barbaz.net', false], ['foobar.com', false], ['www.foobar.com', false], ['foofoobar.com', true], ['baz.com', true],
    ['localhost.net', true], ['local.localhost', true], ['barbarbaz.net', true], ['wildcard.io', true], ['nested.wildcard.io', false], ['awildcard.io', true],
  ];
  it.each(useProxyTests)('%s proxied: %s', (host, proxied) => {
    expect(proxyFor(`https://${host}:80`, { HTTPS_PROXY: 'http://proxy:3128', NO_PROXY: noProxy })).toBe(proxied ? 'http://proxy:3128' : undefined);
  });

  it('NO_PROXY=* proxies none of them (TestAllNoProxy)', () => {
    for (const [host] of useProxyTests) expect(proxyFor(`https://${host}:80`, { HTTPS_PROXY: 'proxy', NO_PROXY: '*' })).toBeUndefined();
  });

  it('a malformed entry (":1") is ignored (TestInvalidNoProxy)', () => {
    expect(proxyFor('https://example.com:80', { HTTPS_PROXY: 'proxy', NO_PROXY: ':1' })).toBe('http://proxy');
  });
});

describe('proxyFromEnvironment: the rules of proxy.go', () => {
  it('the upper-case name wins over the lower-case one unless it is empty (getEnvAny("HTTPS_PROXY", "https_proxy"))', () => {
    expect(proxyFromEnvironment(new URL('https://k8s.example.com'), { HTTPS_PROXY: 'upper:1', https_proxy: 'lower:2' })).toEqual({ variable: 'HTTPS_PROXY', value: 'upper:1', url: 'http://upper:1' });
    expect(proxyFromEnvironment(new URL('https://k8s.example.com'), { HTTPS_PROXY: '', https_proxy: 'lower:2' })).toEqual({ variable: 'https_proxy', value: 'lower:2', url: 'http://lower:2' });
    expect(proxyFor('http://k8s.example.com', { HTTP_PROXY: 'upper:1', http_proxy: 'lower:2' })).toBe('http://upper:1');
    expect(proxyFor('https://k8s.example.com', { HTTPS_PROXY: 'p', NO_PROXY: 'other.com', no_proxy: 'k8s.example.com' })).toBe('http://p');
    expect(proxyFor('https://k8s.example.com', { HTTPS_PROXY: 'p', NO_PROXY: '', no_proxy: 'k8s.example.com' })).toBeUndefined();
  });

  it('a server without a port is at 443 (https) or 80 (http) for NO_PROXY ports (canonicalAddr)', () => {
    const env = { HTTPS_PROXY: 'p', HTTP_PROXY: 'p', NO_PROXY: 'k8s.example.com:443, plain.example.com:80' };
    expect(proxyFor('https://k8s.example.com', env)).toBeUndefined();
    expect(proxyFor('https://k8s.example.com:6443', env)).toBe('http://p');
    expect(proxyFor('http://plain.example.com', env)).toBeUndefined();
  });

  it('entries are trimmed and case-insensitive; a name entry never matches an IP host (domainMatch), a CIDR does', () => {
    expect(proxyFor('https://k8s.example.com', { HTTPS_PROXY: 'p', NO_PROXY: '  K8S.Example.COM  ' })).toBeUndefined();
    expect(proxyFor('https://10.0.0.1', { HTTPS_PROXY: 'p', NO_PROXY: '0.1' })).toBe('http://p');
    expect(proxyFor('https://10.0.0.1', { HTTPS_PROXY: 'p', NO_PROXY: '10.0.0.0/8' })).toBeUndefined();
  });

  it('loopback in any spelling is never proxied (useProxy: host == "localhost" || ip.IsLoopback())', () => {
    for (const server of ['https://localhost:6443', 'https://127.0.0.1:6443', 'https://127.9.8.7', 'https://[::1]:6443', 'https://[::ffff:127.0.0.1]:6443']) {
      expect(proxyFor(server, { HTTPS_PROXY: 'http://proxy:3128' })).toBeUndefined();
    }
    expect(proxyFor('https://localhost.example.com', { HTTPS_PROXY: 'http://proxy:3128' })).toBe('http://proxy:3128');
  });
});

describe('proxyForCluster', () => {
  const cluster = (server: string, proxyUrl?: string) => ({ name: 'c', server, ...(proxyUrl ? { proxyUrl } : {}) });

  it('the cluster\'s proxy-url wins over HTTPS_PROXY, and NO_PROXY does not apply to it', () => {
    expect(proxyForCluster(cluster('https://k8s.example.com', 'http://mine:3128'), { HTTPS_PROXY: 'http://env:3128', NO_PROXY: '*' })).toBe('http://mine:3128');
  });

  it('HTTPS_PROXY when usable, none when NO_PROXY covers the server', () => {
    expect(proxyForCluster(cluster('https://k8s.example.com'), { HTTPS_PROXY: 'proxy.corp:3128' })).toBe('http://proxy.corp:3128');
    expect(proxyForCluster(cluster('https://k8s.example.com'), { HTTPS_PROXY: 'socks5://proxy:1080', NO_PROXY: '.example.com' })).toBeUndefined();
    expect(proxyForCluster(cluster('http://k8s.example.com:8080'), { HTTP_PROXY: 'http://proxy:3128', NO_PROXY: 'k8s.example.com' })).toBeUndefined();
  });

  it('an environment proxy the runtime cannot use is one line naming the variable, its value and the fix', () => {
    expect(() => proxyForCluster(cluster('https://k8s.example.com'), { HTTPS_PROXY: 'socks5://proxy:1080' })).toThrow(
      'cluster "c" gets HTTPS_PROXY=socks5://proxy:1080 from the environment, a socks5 proxy, where only http:// proxies (HTTP CONNECT) are supported; add k8s.example.com to NO_PROXY or unset HTTPS_PROXY',
    );
    expect(() => proxyForCluster(cluster('https://k8s.example.com'), { https_proxy: 'https://proxy:3129' })).toThrow(
      'cluster "c" gets https_proxy=https://proxy:3129 from the environment, a https proxy, where only http:// proxies (HTTP CONNECT) are supported; add k8s.example.com to NO_PROXY or unset https_proxy',
    );
    expect(() => proxyForCluster(cluster('http://k8s.example.com:8080'), { HTTP_PROXY: 'http://proxy:3128' })).toThrow(
      'cluster "c" gets HTTP_PROXY=http://proxy:3128 from the environment for the plain-HTTP server http://k8s.example.com:8080, where only https:// servers can be reached through a proxy; add k8s.example.com to NO_PROXY or unset HTTP_PROXY',
    );
    expect(() => proxyForCluster(cluster('https://k8s.example.com'), { HTTPS_PROXY: '%zz' })).toThrow(
      'cluster "c" gets HTTPS_PROXY=%zz from the environment, which is not a URL (write it as http://host:port); add k8s.example.com to NO_PROXY or unset HTTPS_PROXY',
    );
    expect(() => proxyForCluster(cluster('http://k8s.example.com'), { HTTP_PROXY: 'p', REQUEST_METHOD: 'GET' })).toThrow(/^cluster "c": refusing to use HTTP_PROXY=p for http:\/\/k8s\.example\.com because REQUEST_METHOD is set/);
  });

  it('a proxy-url the runtime cannot use is refused as before', () => {
    expect(() => proxyForCluster(cluster('https://k8s.example.com', 'socks5://proxy:1080'), {})).toThrow(
      'cluster "c" sets proxy-url socks5://proxy:1080, a socks5 proxy, where only http:// proxies (HTTP CONNECT) are supported',
    );
  });
});
